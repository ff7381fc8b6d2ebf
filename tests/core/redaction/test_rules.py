"""One test per secret rule, built from its vendor's documented format; honest text untouched.

Secrets here are generated from the documented shape (prefix, alphabet, length) with a seeded
random source, or are the vendor's own published example where it has one (the AWS and RFC
examples). None is a real credential.
"""

from __future__ import annotations

import random
import string

import pytest
from anneal_memory.redaction import SECRET_KINDS, marker, redact, scan

B62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = B62 + "+/"
URLSAFE = B62 + "-_"


def rand(alphabet: str, n: int, seed: str) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(rand(B64, 64, f"pem{i}") for i in range(6))
    + "\n-----END RSA PRIVATE KEY-----"
)

# kind -> (text holding the secret, the secret itself, where the format is documented)
CASES: dict[str, tuple[str, str, str]] = {
    "private-key": (f"key file:\n{PEM}\nend", PEM, "RFC 7468 (PEM), section 10 / OpenSSL"),
    "aws-access-key": (
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
        "AKIAIOSFODNN7EXAMPLE",
        "docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html (example key id)",
    ),
    "aws-secret-key": (
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html (example secret)",
    ),
    "github-token": (
        "git push with ghp_" + rand(B62, 36, "gh") + " failed",
        "ghp_" + rand(B62, 36, "gh"),
        "github.blog/2021-04-05-behind-githubs-new-authentication-token-formats",
    ),
    "gitlab-token": (
        "export GITLAB_TOKEN=glpat-" + rand(URLSAFE, 20, "gl"),
        "glpat-" + rand(URLSAFE, 20, "gl"),
        "docs.gitlab.com/ee/security/tokens/#token-prefixes",
    ),
    "slack-token": (
        "bot token xoxb-17653672481-19874698323-" + rand(B62, 24, "sl"),
        "xoxb-17653672481-19874698323-" + rand(B62, 24, "sl"),
        "api.slack.com/authentication/token-types#bot",
    ),
    "slack-webhook": (
        "POST https://hooks.slack.com/services/T0"
        + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8, "t")
        + "/B0"
        + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8, "b")
        + "/"
        + rand(B62, 24, "w"),
        "https://hooks.slack.com/services/T0"
        + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8, "t")
        + "/B0"
        + rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8, "b")
        + "/"
        + rand(B62, 24, "w"),
        "api.slack.com/messaging/webhooks",
    ),
    "stripe-key": (
        "stripe.api_key = 'sk_live_" + rand(B62, 24, "st") + "'",
        "sk_live_" + rand(B62, 24, "st"),
        "docs.stripe.com/keys (sk_live_, sk_test_, rk_live_ prefixes)",
    ),
    "anthropic-api-key": (
        "x-api-key: sk-ant-api03-" + rand(URLSAFE, 93, "an") + "AA",
        "sk-ant-api03-" + rand(URLSAFE, 93, "an") + "AA",
        "docs.anthropic.com/en/api/getting-started (x-api-key header)",
    ),
    "openai-api-key": (
        "OPENAI_API_KEY=sk-proj-" + rand(URLSAFE, 74, "o1") + "T3BlbkFJ" + rand(URLSAFE, 74, "o2"),
        "sk-proj-" + rand(URLSAFE, 74, "o1") + "T3BlbkFJ" + rand(URLSAFE, 74, "o2"),
        "platform.openai.com/docs/api-reference/authentication",
    ),
    "google-api-key": (
        "https://maps.googleapis.com/maps/api/geocode/json?key=AIza" + rand(URLSAFE, 35, "go"),
        "AIza" + rand(URLSAFE, 35, "go"),
        "cloud.google.com/docs/authentication/api-keys",
    ),
    "google-oauth-token": (
        "access_token ya29." + rand(URLSAFE, 120, "ya"),
        "ya29." + rand(URLSAFE, 120, "ya"),
        "developers.google.com/identity/protocols/oauth2",
    ),
    "jwt": (
        "id token eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MT"
        "kzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_"
        "wW1gFWFOEjXk",
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQo"
        "gImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOE"
        "jXk",
        "RFC 7519, section 3.1 (example JWT)",
    ),
    "npm-token": (
        "//registry.npmjs.org/:_authToken=npm_" + rand(B62, 36, "np"),
        "npm_" + rand(B62, 36, "np"),
        "docs.npmjs.com/about-access-tokens",
    ),
    "pypi-token": (
        "password = pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 70, "py"),
        "pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 70, "py"),
        "pypi.org/help/#apitoken (pypi- prefix, macaroon for pypi.org)",
    ),
    "huggingface-token": (
        "HF_TOKEN=hf_" + rand(B62, 34, "hf"),
        "hf_" + rand(B62, 34, "hf"),
        "huggingface.co/docs/hub/security-tokens",
    ),
    "sendgrid-key": (
        "SENDGRID_API_KEY='SG." + rand(URLSAFE, 22, "s1") + "." + rand(URLSAFE, 43, "s2") + "'",
        "SG." + rand(URLSAFE, 22, "s1") + "." + rand(URLSAFE, 43, "s2"),
        "twilio.com/docs/sendgrid/ui/account-and-settings/api-keys",
    ),
    "twilio-api-key": (
        "api key SK" + rand(HEX, 32, "tw") + " for the account",
        "SK" + rand(HEX, 32, "tw"),
        "twilio.com/docs/iam/api-keys",
    ),
    "digitalocean-token": (
        "doctl auth init -t dop_v1_" + rand(HEX, 64, "do"),
        "dop_v1_" + rand(HEX, 64, "do"),
        "docs.digitalocean.com/reference/api/create-personal-access-token",
    ),
    "shopify-token": (
        "X-Shopify-Access-Token: shpat_" + rand(HEX, 32, "sh"),
        "shpat_" + rand(HEX, 32, "sh"),
        "shopify.dev/docs/apps/build/authentication-authorization/access-token-types",
    ),
    "azure-storage-key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        + rand(B64, 86, "az")
        + "==;EndpointSuffix=core.windows.net",
        rand(B64, 86, "az") + "==",
        "learn.microsoft.com/azure/storage/common/storage-configure-connection-string",
    ),
    "telegram-bot-token": (
        "https://api.telegram.org/bot123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getMe",
        "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
        "core.telegram.org/bots/api#authorizing-your-bot (example token)",
    ),
    "age-secret-key": (
        "# created: 2026-03-02\nAGE-SECRET-KEY-1"
        + rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, "ag"),
        "AGE-SECRET-KEY-1" + rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, "ag"),
        "age-encryption.org/v1 (Bech32 secret key, upper case)",
    ),
    "url-credentials": (
        "DATABASE_URL=postgresql://app:Pq7-xL2mZ9@db.internal:5432/app",
        "Pq7-xL2mZ9",
        "RFC 3986, section 3.2.1 (userinfo user:password)",
    ),
    "authorization-header": (
        "Authorization: Bearer mF_9.B5f-4.1JqM",
        "mF_9.B5f-4.1JqM",
        "RFC 6750, section 2.1 (example bearer token)",
    ),
    "bearer-token": (
        "curl -H 'bearer " + rand(URLSAFE, 40, "be") + "' https://api.internal",
        rand(URLSAFE, 40, "be"),
        "RFC 6750 (a bearer token without the header name)",
    ),
    "password": (
        'DB_PASSWORD="Tr0ub4dor&3"',
        "Tr0ub4dor&3",
        "a password assignment (.env, YAML, JSON)",
    ),
    "secret-assignment": (
        "api_key: " + rand(B62, 32, "gk"),
        rand(B62, 32, "gk"),
        "a key/token/secret assignment with a generated value",
    ),
}


def test_every_kind_has_a_case() -> None:
    assert set(CASES) == set(SECRET_KINDS)
    assert len(SECRET_KINDS) >= 20


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_vendor_format_is_redacted_as_its_kind(kind: str) -> None:
    text, secret, _source = CASES[kind]
    done = redact(text)
    assert secret not in done.text
    assert marker(kind) in done.text
    assert done.kinds == (kind,)


def test_the_text_around_a_secret_stays() -> None:
    done = redact("deploy failed: AKIAIOSFODNN7EXAMPLE was rejected, retry at 10:00")
    assert done.text == "deploy failed: [redacted:aws-access-key] was rejected, retry at 10:00"
    (found,) = done.detections
    assert (found.kind, found.start, found.end) == ("aws-access-key", 15, 35)


def test_only_the_password_of_a_url_goes() -> None:
    text = "clone https://deploy:s3cr3t-Pw9@git.internal/repo.git then build"
    assert redact(text).text == (
        "clone https://deploy:[redacted:url-credentials]@git.internal/repo.git then build"
    )


def test_the_more_specific_rule_wins_an_overlap() -> None:
    token = "ghp_" + rand(B62, 36, "overlap")
    assert redact(f"token={token}").text == "token=[redacted:github-token]"
    assert redact(f"https://x:{token}@github.com/o/r").kinds == ("github-token",)


def test_a_cut_private_key_is_redacted_to_the_end() -> None:
    cut = "log:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU"
    assert redact(cut).text == "log:\n[redacted:private-key]"


def test_a_json_escaped_private_key_is_redacted() -> None:
    escaped = PEM.replace("\n", "\\n")
    text = '{"type": "service_account", "private_key": "' + escaped + '\\n", "x": 1}'
    done = redact(text)
    assert "PRIVATE KEY" not in done.text
    assert done.text.endswith('\\n", "x": 1}')


def test_several_secrets_in_one_text() -> None:
    text = (
        "AKIAIOSFODNN7EXAMPLE / sk_test_" + rand(B62, 24, "a") + " / password: hunter22 / "
        "postgres://u:p4ssw0rd-x@h/db"
    )
    done = redact(text)
    assert done.kinds == ("aws-access-key", "password", "stripe-key", "url-credentials")
    assert done.text.count("[redacted:") == 4


def test_redacting_twice_changes_nothing() -> None:
    for text, _secret, _source in CASES.values():
        once = redact(text).text
        assert redact(once).text == once
        assert scan(once) == ()


HONEST = [
    "The password policy: rotate every key monthly and never paste tokens in chat.",
    "Set max_tokens=4096 and tokenizer=porter for the recall index.",
    "token: 128k context budget, secret: the sauce is patience",
    "Set api_key to the key from your dashboard (API_KEY=<your-key> or ${API_KEY}).",
    "postgresql://user:password@localhost:5432/db is the example URL in the docs",
    "connect with postgresql://agent@db.internal/memory (no password: peer auth)",
    "AKIA is the prefix of AWS access key ids; ghp_ starts a GitHub token.",
    "The bearer of bad news arrived at 09:00:00 on 2026-03-02.",
    "Authorization: Bearer <token> goes in the header.",
    "xoxo-gossip-girl fan club meets on Fridays; sk-learn is a typo of scikit-learn.",
    "Release 1.0.2 fixed issue #30; see https://example.com/docs?page=2&lang=en.",
    "Chose PostgreSQL because ACID outweighs speed; the pool size is 20.",
    "Keyboard shortcut: Ctrl+Shift+P opens the palette.",
    "secret_santa=true and the access_key_rotation: enabled",
    "She said her password: is written on a sticky note, which worries me.",
    'store.record("Relocated", state_key="User.Home_City", idempotency_key="Ab3dE5fG7hJ9kL")',
]


@pytest.mark.parametrize("text", HONEST)
def test_honest_text_is_left_alone(text: str) -> None:
    assert scan(text) == ()


@pytest.mark.parametrize(
    "hostile",
    [
        "eyJ" * 22_000,
        ("eyJ" + "a" * 40 + ".") * 1_500,
        "a://" + "b" * 65_000,
        ("x://u:" + "p" * 300) * 200,
        "-----BEGIN PRIVATE KEY-----" * 2_000,
        "password=" * 7_000,
        "AKIA" * 16_000,
        "1" * 65_000,
        ("+" + "1" * 20 + " ") * 3_000,
    ],
    ids=lambda s: s[:12],
)
def test_hostile_input_is_scanned_to_the_end(hostile: str) -> None:
    done = redact(hostile, personal=True)
    assert isinstance(done.text, str)
    for found in done.detections:
        assert 0 <= found.start < found.end <= len(hostile)
