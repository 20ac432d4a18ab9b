"""Secret detection by content (domain/secrets.py): every known format is found, believable assignments to
secret-named keys are found, and ordinary code, placeholders and mentions of a format are not.

The fake credentials below are assembled from pieces at run time, so this file does not itself look like it
holds credentials (to Trifecta's indexer or to a host's push protection)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.secrets import (
    REDACTED,
    find_secrets,
    looks_like_secret,
    redact,
    secret_kind,
    shannon_entropy,
)

B64 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
BEGIN, END = "-----" + "BEGIN", "-----" + "END"


def pem(label: str = "RSA PRIVATE KEY", newline: str = "\n") -> str:
    return f"{BEGIN} {label}-----{newline}{B64}{newline}{B64[:40]}{newline}{END} {label}-----{newline}"


# (kind, a credential in that format); each value is what must disappear from redacted text
KNOWN_FORMATS = [
    ("private_key", pem()),
    ("private_key", pem("EC PRIVATE KEY")),
    ("private_key", pem("OPENSSH PRIVATE KEY")),
    ("private_key", pem("DSA PRIVATE KEY")),
    ("private_key", pem("PRIVATE KEY")),
    ("private_key", pem("ENCRYPTED PRIVATE KEY")),
    ("private_key", pem("PGP PRIVATE KEY BLOCK")),
    ("private_key", pem("PRIVATE KEY", newline="\\n")),  # inside a JSON string
    ("aws_access_key", "AKIA" + "Z7Q3JQWERTY2ABCD"),
    ("aws_access_key", "ASIA" + "Z7Q3JQWERTY2ABCD"),
    ("github_token", "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
    ("github_token", "gho_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
    ("github_token", "ghs_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
    (
        "github_token",
        "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP0123456789",
    ),
    ("gitlab_token", "glpat-" + "xY3zA5bC7dE9fG1hJ3kL"),
    ("slack_token", "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("slack_token", "xoxp-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("stripe_key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("pypi_token", "pypi-AgEIcHlwaS5vcmc" + "CJDU3ZmMzNWRhLTU2YzctNGI1Yy1hNWYzLTk1ZGI5NjQ1ZDFiNgACKlsz"),
    ("huggingface_token", "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    ("openai_key", "sk-proj-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3"),
    ("openai_key", "sk-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5Jk7Lm9"),
    ("anthropic_key", "sk-ant-api03-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5Jk7"),
    ("google_api_key", "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("npm_token", "npm_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5"),
    ("sendgrid_key", "SG." + "Ab3De5Gh7Jk9Mn1Pq3St5V.w7Yz9Bc1Ef3Gh5Jk7Lm9Np1Qr3St5Vw7Yz9Bc1Ef3Gh"),
    ("slack_webhook", "https://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/Ab3De5Gh7Jk9Mn1Pq3St5Vw7"),
]

# (kind, text holding a credential as a key = value, the credential value)
ASSIGNMENTS = [
    (
        "secret_assignment",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7Rk2Lm9a",
        "wJalrXUtnFEMI/K7MDENG",
    ),
    ("secret_assignment", "DB_PASSWORD=Xk9mP2qL7vRt", "Xk9mP2qL7vRt"),
    ("secret_assignment", "export MY_APP_TOKEN=a8f3c9e1b7d24f6a", "a8f3c9e1b7d24f6a"),
    ("secret_assignment", 'api_key: "f3a9c1e7b2d84f6a9c0e1b3d5f7a9c2e"', "f3a9c1e7b2d84f6a9c0e1b3d5f7a9c2e"),
    ("secret_assignment", "client_secret = 'Zq8Xw7Vu6Ts5Rq4Po3'", "Zq8Xw7Vu6Ts5Rq4Po3"),
    ("secret_assignment", '{"db_password": "Tr0ub4dor&3xyz"}', "Tr0ub4dor&3xyz"),
    ("secret_assignment", "password: s3cr3tValue123", "s3cr3tValue123"),
    ("secret_assignment", 'SECRET_KEY = "django-insecure-9x#k2!mq7v@p0z3l5w8r"', "django-insecure-9x#k2"),
    ("bearer_token", "curl -H 'Authorization: Bearer " + "Ab3De5Gh7Jk9Mn1Pq3St'", "Ab3De5Gh7Jk9Mn1Pq3St"),
]

# code, placeholders and mentions that hold no credential
NOT_SECRETS = [
    "password = get_password()",
    "token = self._next_token()",
    'secret_key = os.environ["SECRET_KEY"]',
    "secret_key = os.environ.get('SECRET_KEY', '')",
    'password: str = ""',
    "def login(user: str, password: str = None) -> Token: ...",
    'password = "changeme"',
    "API_TOKEN=<your-token>",
    "TOKEN=${TOKEN}",
    'secret = "xxx"',
    'api_key = "your-api-key-here"',
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    f'PEM_HEADER = "{BEGIN} RSA PRIVATE KEY-----"',
    "tokenizer = Tokenizer(source)",
    "if password == stored_password: return True",
    'headers = {"Authorization": f"Bearer {token}"}',
    '"Authorization: Bearer " + token',
    "token_type = 'bearer'",
    "tokens = tokenize.generate_tokens(readline)",
    "secret = token_bytes(DEFAULT_ENTROPY)",
    "password=password, token=token, secret=secret",
    "# set DB_PASSWORD=... in the environment",
    "ACCESS_KEY = AKIAIOSFODNN7EXAMPLE",  # the AWS documentation's example key
    "sk-learn-classifier-pipeline-component",
    "glpat-" + "x" * 20,
    'identity_token="test_schema_2"',
    'publicKeyToken="1fc8b3b9a1e18e3b"',
    "private_key: Ed25519PrivateKey | Ed448PrivateKey",
    "    token: OAuth2Token",
    "NTE_INCORRECT_PASSWORD: Final = -2146893773",
    'token = r"[-!#$%&\'*+.^_`|~0-9a-zA-Z]+"',
    'verify_token="eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9..."',
    "hf_hub_download_from_repository_name",
    "PASSWORD_FIELD = 'password_confirmation'",
]


@pytest.mark.parametrize(
    ("kind", "secret"), KNOWN_FORMATS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(KNOWN_FORMATS)]
)
def test_known_formats_are_found_and_redacted(kind: str, secret: str) -> None:
    text = f"config:\n  value: {secret}\n# end\n"
    assert secret_kind(text) == kind
    redacted = redact(text)
    assert REDACTED in redacted
    body = secret.split("-----")[2] if kind == "private_key" else secret
    assert body.strip("\\n").split("\\n")[0].strip() not in redacted


@pytest.mark.parametrize(
    ("kind", "text", "value"), ASSIGNMENTS, ids=[t.split("=")[0][:20] for _, t, _ in ASSIGNMENTS]
)
def test_believable_assignments_to_secret_names_are_found(kind: str, text: str, value: str) -> None:
    assert secret_kind(text) == kind
    assert value not in redact(text)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_code_placeholders_and_mentions_are_not_secrets(text: str) -> None:
    assert secret_kind(text) is None, list(find_secrets(text))


def test_a_prefixed_key_is_still_a_secret_name() -> None:
    # the word-boundary bug: `\bpassword` never matched DB_PASSWORD
    assert redact("DB_PASSWORD=hunter2") == f"DB_PASSWORD={REDACTED}"
    assert redact("MY_APP_TOKEN: abc") == f"MY_APP_TOKEN: {REDACTED}"


def test_redact_keeps_the_words_around_a_secret() -> None:
    gh = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    assert redact(f"why does {gh} fail in login()") == f"why does {REDACTED} fail in login()"
    assert redact("where is the config loaded") == "where is the config loaded"


def test_a_service_account_json_is_a_secret() -> None:
    text = (
        '{"type": "service_account", "project_id": "demo", "private_key_id": "0123abcd",\n'
        f' "private_key": "{pem("PRIVATE KEY", newline=chr(92) + "n")}",\n'
        ' "client_email": "svc@demo.iam.gserviceaccount.com"}\n'
    )
    assert secret_kind(text) == "private_key"
    assert B64[:30] not in redact(text)


def test_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == pytest.approx(2.0)
    assert not looks_like_secret("aaaaaaaaaaaaaaaa", quoted=True)
    assert looks_like_secret("Zq8Xw7Vu6Ts5Rq4Po3", quoted=True)
    assert not looks_like_secret("self.next_token", quoted=False)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_detection_and_redaction_never_raise(text: str) -> None:
    secret_kind(text)
    out = redact(text)
    assert len(out) <= len(text) + len(REDACTED) * (text.count("=") + text.count(":") + 8)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("password_TOKEN=: \"'\n-BEGINPRIVATEKY0aZ/+")), max_size=300))
def test_near_misses_never_raise(text: str) -> None:
    secret_kind(text)
    redact(text)


def test_an_example_value_in_documentation_does_not_keep_the_page_out_but_a_key_does() -> None:
    example = (
        "Set the key in your config::\n\n    SECRET_KEY = '" + "192b9bdd22ab9ed4" + "d12e236c78afcb9a'\n"
    )
    assert secret_kind(example) == "secret_assignment"  # in code or a config file: a credential
    assert secret_kind(example, path="docs/config.rst") is None  # in docs: an example
    assert secret_kind(example, path="README.md") is None
    assert secret_kind(example, path="settings.py") == "secret_assignment"
    assert secret_kind(example, path="notes.txt") == "secret_assignment"
    assert secret_kind("Deploy key:\n" + pem(), path="docs/deploy.md") == "private_key"


def test_a_camel_case_name_as_a_value_in_code_is_a_reference() -> None:
    # axios's mergeConfig.js: an object literal mapping option names to merge functions
    assert (
        secret_kind("const mergeMap = {\n    withXSRFToken: defaultToConfig2,\n};\n", path="lib/x.js") is None
    )
    token = "aB3dE5fG7hJ9kL1mN3pQ"  # a random value unquoted in an env-style file is still found
    assert secret_kind(f"API_TOKEN={token}\n", path=".env.local") == "secret_assignment"
