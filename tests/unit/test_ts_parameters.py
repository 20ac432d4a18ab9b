"""The types a TypeScript signature gives its parameters (``domain.ts_parameters``): what an object literal
passed at each position implements."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.ts_parameters import named_types, parameter_types, type_parameter_bound


def test_each_parameter_gives_the_named_types_a_literal_passed_there_implements() -> None:
    assert parameter_types("subscribe(observer: Partial<Observer<TValue, TError>>): Unsubscribable") == [
        ("Observer",)
    ]
    assert parameter_types(
        "export function watch(label: string, sink?: Readonly<Sink<number>> | undefined)"
    ) == [
        (),
        ("Sink",),
    ]
    assert parameter_types("handle({ a, b }: Opts, z = 3, w: 'a' | 'b', ...rest: Extra[])") == [
        ("Opts",),
        (),
        (),
        (),
    ]


def test_a_function_type_a_default_and_the_signatures_own_type_parameters_name_nothing() -> None:
    # `=>` is no default's `=`; `T` and `E` are the signature's own; `this` takes no argument
    signature = "f<T, E extends (a: A) => B = X>(this: Ctx, cb: (a: A) => B = () => 1, o: ns.Opts & T, e: E)"
    assert parameter_types(signature) == [(), ("ns.Opts",), ()]
    # a property typed by a function type: its parameters
    assert parameter_types("readonly onError?: (o: ErrorOpts<T>) => void") == [("ErrorOpts",)]


def test_named_types_keep_what_a_literal_can_implement() -> None:
    assert named_types("Omit<Chunk<unknown>, 'length'> & (Extra | null)") == ("Chunk", "Extra")
    assert named_types("Sink[]") == ()
    assert named_types("Record<string, Sink>") == ()
    assert named_types("{ next(): void }") == ()
    assert named_types("string | number | undefined") == ()


@given(st.text(max_size=300))
def test_any_text_reads_without_an_error(text: str) -> None:
    for types in parameter_types(text):
        assert all(isinstance(t, str) and t for t in types)
    assert all(t for t in named_types(text))
    assert all(t for t in type_parameter_bound("class A<" + text, "T") or ())


def test_deep_nesting_ends() -> None:
    assert named_types("(" * 5000 + "A" + ")" * 5000) == ()
    assert named_types("Partial<" * 3000 + "A" + ">" * 3000) == ()
    assert parameter_types("f(a: " + "(" * 900 + "A" + ")" * 900 + ")") == [()]


def test_a_type_parameter_is_bound_by_its_constraint() -> None:
    head = (
        "class NodeView< C, E extends CoreEditor = CoreEditor, O extends Opts<E> = Opts<E>, > implements View"
    )
    assert type_parameter_bound(head, "E") == ("CoreEditor",)
    assert type_parameter_bound(head, "O") == ("Opts",)
    assert type_parameter_bound(head, "C") == ()  # declared, no constraint
    assert type_parameter_bound(head, "View") is None  # not a type parameter
    assert type_parameter_bound("export function f<R extends AnyRouter>(router: R)", "R") == ("AnyRouter",)
    assert type_parameter_bound("const make = <T extends Base | undefined>(t: T) => t", "T") == ("Base",)
    assert type_parameter_bound("static async m<const K extends A & B>(k: K)", "K") == ("A", "B")
    # no list of its own: `B<C>` is what the class extends; `keyof X` names no type a member is read from
    assert type_parameter_bound("class A extends B<C>", "C") is None
    assert type_parameter_bound("m<K extends keyof X>(k: K)", "K") == ()
    assert type_parameter_bound("f<T extends (a: A) => B>(t: T)", "T") == ()
    assert type_parameter_bound("class A<T extends B", "T") is None  # never closed
