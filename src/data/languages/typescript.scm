; TypeScript (and TSX) definitions. @owner qualifies an assignment (`X.prototype.m = function` is X.m).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.module
(module name: (_) @name) @definition.module

(method_definition name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(method_signature name: (_) @name) @definition.method
(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method
(interface_body (property_signature name: (_) @name) @definition.field)

; module-level `const f = () => ...`, `const Foo = class {...}`, `const x = ...`
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.const))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.const))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @definition.const)))
(program (export_statement (variable_declaration (variable_declarator name: (identifier) @name) @definition.const)))

; CommonJS and prototype assignments
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @owner
        property: (property_identifier) @_prototype (#eq? @_prototype "prototype"))
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.method
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @_module (#eq? @_module "module")
        property: (property_identifier) @_exports (#eq? @_exports "exports"))
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function) (class)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports (#eq? @_exports "exports")
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function) (class)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports (#eq? @_exports "exports")
      property: (property_identifier) @name))) @definition.const
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @owner (#not-any-of? @owner "exports" "module" "this" "window" "self" "global")
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module (#eq? @_module "module")
      property: (property_identifier) @_exports (#eq? @_exports "exports"))
    right: [
      (function_expression name: (identifier) @name)
      (class name: (_) @name)
    ])) @definition.function
(expression_statement
  (assignment_expression
    left: (member_expression object: (this) @owner property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; bases: what a class extends or implements, what an interface extends
(class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (extends_clause value: (_) @base))) @bases.of
(abstract_class_declaration (class_heritage (implements_clause (_) @base))) @bases.of
(interface_declaration (extends_type_clause (_) @base)) @bases.of
