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
