; Ruby definitions: classes and modules; methods are Class.method (singleton methods too).
(class name: [(constant) (scope_resolution name: (_))] @name) @definition.class
(module name: [(constant) (scope_resolution name: (_))] @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method

(class superclass: (superclass (_) @base)) @bases.of

; call sites (@reference.call: @call.name, the called name, and @call.receiver, what it is called on)
(call receiver: (_)? @call.receiver method: (identifier) @call.name) @reference.call
