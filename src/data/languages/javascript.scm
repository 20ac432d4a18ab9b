; JavaScript (and JSX) definitions. @owner qualifies an assignment (`X.prototype.m = function` is X.m).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class

(method_definition name: (_) @name) @definition.method
(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method


; bases: what a class extends
(class_declaration (class_heritage (_) @base)) @bases.of
