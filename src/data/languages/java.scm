; Java definitions: types, their methods and constructors (Type.method), enum constants stay in the header.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method

(class_declaration superclass: (superclass (_) @base)) @bases.of
(class_declaration interfaces: (super_interfaces (type_list (_) @base))) @bases.of
(interface_declaration (extends_interfaces (type_list (_) @base))) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(method_invocation object: (_)? @call.receiver name: (identifier) @call.name) @reference.call
(object_creation_expression type: (type_identifier) @call.name) @reference.call
