; C# definitions: namespaces do not qualify their types; types qualify their members (Type.Method).
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(namespace_declaration name: (_) @name) @definition.module
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function

(class_declaration (base_list (_) @base)) @bases.of
(struct_declaration (base_list (_) @base)) @bases.of
(interface_declaration (base_list (_) @base)) @bases.of
(record_declaration (base_list (_) @base)) @bases.of
