; Go definitions. Captures: @definition.<kind> the node, @name its name, @owner the receiver type
; (a method's qualified name is Owner.name). Earlier patterns win when two capture the same node.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (pointer_type (type_identifier) @owner)
        (generic_type type: (type_identifier) @owner)
        (pointer_type (generic_type type: (type_identifier) @owner))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type

(interface_type (method_elem name: (field_identifier) @name) @definition.method)

(source_file (const_declaration (const_spec name: (identifier) @name) @definition.const))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.const))

; bases: embedded structs and interfaces
(type_spec type: (struct_type (field_declaration_list (field_declaration . type: [(type_identifier) (qualified_type) (pointer_type)] @base .)))) @bases.of
(type_spec type: (interface_type (type_elem (type_identifier) @base))) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on) and
; imports (@reference.import: @import.source, the module as written, @import.name, @import.alias)
(call_expression function: (identifier) @call.name) @reference.call
(call_expression
  function: (selector_expression operand: (_) @call.receiver field: (field_identifier) @call.name)) @reference.call
(import_spec name: (package_identifier)? @import.alias path: (interpreted_string_literal) @import.source) @reference.import
