; JavaScript (and JSX) definitions. @owner qualifies an assignment (`X.prototype.m = function` is X.m).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class

; a method of an object literal a variable holds (`const traps = { get() {...} }`) is `traps.get`: no bare
; `get()` reaches it
(variable_declarator name: (identifier) @owner value: (object (method_definition name: (_) @name) @definition.method))
(method_definition name: (_) @name) @definition.method
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method


; bases: what a class extends
(class_declaration (class_heritage (_) @base)) @bases.of
