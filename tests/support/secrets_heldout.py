"""A held-out secrets corpus (issue 36): measured against, never tuned on.

Written before the recognisers of issue 36 were changed, from the forms a
held-out probe found stored verbatim and the ones users paste alongside them,
and kept apart from the tuning corpus (``tests/support/secrets_corpus.py``).
Once measured, its entries are not edited to match what ``redact`` does: a
miss is a miss, and is reported as one.

``HELDOUT_SECRETS``: at least 100 credential forms (format-valid, never real),
each with the ``needle`` that must never survive redaction.
``HELDOUT_ORDINARY``: 200 developer texts with no secret in them (code, logs,
commit hashes, UUIDs, digests, URLs, base64 of ordinary data, prose that says
"password"), which redaction must leave exactly as they are.
Values are made from a seeded hash, so this file trips no scanner and each
needle is unique.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable

from tests.support.secrets_corpus import Secret

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _bytes(seed: str, length: int) -> bytes:
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(f"heldout:{seed}:{counter}".encode()).digest()
        counter += 1
    return out[:length]


def _alnum(seed: str, length: int) -> str:
    return "".join(_ALNUM[b % 62] for b in _bytes(seed, length))


def _hex(seed: str, length: int) -> str:
    return _bytes(seed, length).hex()[:length]


def _upper(seed: str, length: int) -> str:
    return "".join(_ALNUM[b % 26] if b % 3 else str(b % 10) for b in _bytes(seed, length))


def _b64(seed: str, raw: int) -> str:
    return base64.b64encode(_bytes(seed, raw)).decode()


def _word_pw(seed: str) -> str:
    """A memorable password: a capitalised word, digits and a symbol."""
    words = ["Harbor", "Quartz", "Falcon", "Maple", "Orbit", "Cobalt", "Juniper", "Tango", "Velvet", "Saffron"]
    raw = _bytes(seed, 4)
    return f"{words[raw[0] % 10]}{raw[1] % 90 + 10}{'!#%&*?'[raw[2] % 6]}{words[raw[3] % 10].lower()}"


def _tokens() -> list[Secret]:
    """Tokens that name themselves, by provider."""
    atbb = "ATBB" + _alnum("atbb", 28) + _hex("atbb2", 8).upper()
    xapp = "xapp-1-A0" + _upper("xapp1", 9) + "-" + str(int(_hex("xapp2", 12), 16))[:13] + "-" + _hex("xapp3", 64)
    twilio_sid = "AC" + _hex("twsid", 32)
    twilio_auth = _hex("twauth", 32)
    square_atp = "sq0atp-" + _alnum("sqatp", 22)
    square_csp = "sq0csp-" + _alnum("sqcsp", 43)
    square_eaaa = "EAAA" + _alnum("sqeaaa", 60)
    mailchimp = _hex("mc", 32) + "-us14"
    fcm = "AAAA" + _alnum("fcm1", 7) + ":APA91b" + _alnum("fcm2", 134)
    ghu = "ghu_" + _alnum("ghu", 36)
    ghr = "ghr_" + _alnum("ghr", 36)
    glptt = "glptt-" + _hex("glptt", 40)
    gldt = "gldt-" + _alnum("gldt", 20)
    shpss = "shpss_" + _hex("shpss", 32)
    atatt = "ATATT3xFfGF0" + _alnum("atatt", 180) + "=" + _hex("atatt2", 8).upper()
    sntryu = "sntryu_" + _hex("sntryu", 64)
    dapi = "dapi" + _hex("dapi", 32)
    nrak = "NRAK-" + _upper("nrak", 27)
    glsa = "glsa_" + _alnum("glsa", 32) + "_" + _hex("glsa2", 8)
    pmak = "PMAK-" + _hex("pmak1", 24) + "-" + _hex("pmak2", 34)
    dropbox = "sl." + _alnum("dropbox", 130) + "-" + _alnum("dropbox2", 6)
    azure_ad = _alnum("azad1", 3) + "8Q~" + _alnum("azad2", 31)
    notion = "secret_" + _alnum("notion", 43)
    supabase = "sbp_" + _hex("supabase", 40)
    airtable = "pat" + _alnum("air1", 14) + "." + _hex("air2", 64)
    figma = "figd_" + _alnum("figma", 40)
    tailscale = "tskey-auth-k" + _alnum("ts1", 10) + "CNTRL-" + _alnum("ts2", 32)
    ant_admin = "sk-ant-admin01-" + _alnum("antadm", 86) + "-" + _alnum("antadm2", 6) + "AA"
    gcp_refresh = "1//0" + _alnum("gcprt", 99)
    okta = "00" + _alnum("okta", 40)
    fly = "FlyV1 fm2_" + _b64("fly", 90).rstrip("=")
    sendgrid = "SG." + _alnum("sg-h1", 22) + "." + _alnum("sg-h2", 43)
    stripe = "sk_" + "live_" + _alnum("stripe-h", 99)
    slack_xoxb = "xoxb-" + str(int(_hex("xb1", 12), 16))[:12] + "-" + str(int(_hex("xb2", 12), 16))[:13] + "-"
    slack_xoxb += _alnum("xb3", 24)
    npm = "npm_" + _alnum("npm-h", 36)
    openai = "sk-" + _alnum("oai-h", 20) + "T3BlbkFJ" + _alnum("oai-h2", 20)
    gapi = "AIza" + _alnum("gapi-h", 35)
    hf = "hf_" + _alnum("hf-h", 34)
    linear = "lin_api_" + _alnum("linear", 40)
    pypi = "pypi-AgEIcHlwaS5vcmc" + _alnum("pypi-h", 70)
    return [
        Secret("bitbucket-app-password", f"BITBUCKET_APP_PASSWORD set; the app password itself: {atbb}", atbb),
        Secret("bitbucket-in-git-url", f"https://jdoe:{atbb[::-1]}@bitbucket.org/acme/api.git", atbb[::-1]),
        Secret("slack-app-token", f"Socket mode needs the app-level token {xapp}", xapp),
        Secret("twilio-account-sid-and-token", f"Twilio: account {twilio_sid}, auth token {twilio_auth}", twilio_auth),
        Secret("twilio-sid-alone", f"client = Client('{twilio_sid[::-1][:32]}AC', token)", twilio_sid[::-1][:32]),
        Secret("square-access-token", f"SQUARE_ACCESS_TOKEN={square_atp}", square_atp),
        Secret("square-oauth-secret", f"square app secret {square_csp}", square_csp),
        Secret(
            "square-eaaa-token",
            f"curl https://connect.squareup.com/v2/locations -H 'Authorization: {square_eaaa}'",
            square_eaaa,
        ),
        Secret(
            "mailchimp-key", f"mailchimp.set_config({{'api_key': '{mailchimp}', 'server': 'us14'}})", mailchimp[:32]
        ),
        Secret("mailchimp-key-prose", f"MC key {mailchimp[::-1][5:]}-us6 for the newsletter", mailchimp[::-1][5:]),
        Secret("fcm-server-key", f"Authorization: key={fcm}", fcm[20:80]),
        Secret("fcm-server-key-bare", f"legacy FCM server key: {fcm[::-1][:60]}:APA91b{fcm[40:120]}", fcm[40:120]),
        Secret("github-user-to-server", f"the app's user token was {ghu}", ghu),
        Secret("github-refresh-token", f'{{"refresh_token": "{ghr}", "expires_in": 15897600}}', ghr),
        Secret(
            "gitlab-trigger-token", f"curl -X POST -F token={glptt} -F ref=main https://gitlab.acme.dev/api/v4", glptt
        ),
        Secret("gitlab-deploy-token", f"deploy token {gldt} (read_registry)", gldt),
        Secret("shopify-shared-secret", f"SHOPIFY_API_SECRET={shpss}", shpss),
        Secret("atlassian-api-token", f"jira: curl -u me@acme.dev:{atatt} https://acme.atlassian.net", atatt[:80]),
        Secret("sentry-user-token", f"sentry-cli uses {sntryu}", sntryu),
        Secret("databricks-token", f"databricks configure --token   # pasted {dapi}", dapi),
        Secret("newrelic-user-key", f"NEW_RELIC_API_KEY: {nrak}", nrak),
        Secret("grafana-service-account", f"grafana token {glsa}", glsa),
        Secret("postman-api-key", f"x-api-key {pmak}", pmak),
        Secret("dropbox-short-lived", f"dbx = dropbox.Dropbox('{dropbox}')", dropbox[:90]),
        Secret("azure-ad-client-secret", f"AZURE_CLIENT_SECRET={azure_ad}", azure_ad),
        Secret(
            "azure-ad-client-secret-prose", f"the app registration's secret value is {azure_ad[::-1]}", azure_ad[::-1]
        ),
        Secret("notion-integration", f"NOTION_TOKEN={notion}", notion),
        Secret("supabase-access-token", f"supabase login --token {supabase}", supabase),
        Secret("airtable-pat", f"Authorization: Bearer {airtable}", airtable),
        Secret("figma-token", f"X-Figma-Token: {figma}", figma),
        Secret("tailscale-auth-key", f"tailscale up --authkey={tailscale}", tailscale),
        Secret("anthropic-admin-key", f"ANTHROPIC_ADMIN_KEY={ant_admin}", ant_admin[:60]),
        Secret("google-refresh-token", f"refresh_token: {gcp_refresh}", gcp_refresh),
        Secret("okta-ssws", f"curl -H 'Authorization: SSWS {okta}' https://acme.okta.com/api/v1/users", okta),
        Secret("fly-token", f"FLY_API_TOKEN='{fly}'", fly[10:70]),
        Secret("sendgrid-in-python", f"sg = SendGridAPIClient('{sendgrid}')", sendgrid),
        Secret("stripe-in-json", f'{{"stripe": {{"secret": "{stripe}"}}}}', stripe),
        Secret("slack-bot-in-session-id", f"session sess_{slack_xoxb}_42 resumed", slack_xoxb),
        Secret("npm-in-session-id", f"session id build{npm}", npm),
        Secret("openai-legacy-key", f"openai.api_key = {openai}", openai),
        Secret("google-key-in-url", f"https://maps.googleapis.com/maps/api/geocode/json?address=x&key={gapi}", gapi),
        Secret("huggingface-in-python", f'login(token="{hf}")', hf),
        Secret("linear-api-key", f"LINEAR_API_KEY is {linear}", linear),
        Secret("pypirc", f"[pypi]\n  username = __token__\n  password = {pypi}\n", pypi),
    ]


def _cli() -> list[Secret]:
    """Passwords handed to a command line."""
    pw = {n: _word_pw(n) for n in "abcdefghijklmnopqrstuvwxyz"}
    rnd = {n: _alnum("cli-" + n, 18) for n in "abcdefghij"}
    return [
        Secret("sqlcmd-P", f"sqlcmd -S sql01 -U sa -P {pw['a']} -Q 'SELECT 1'", pw["a"]),
        Secret("bcp-P", f"bcp dbo.orders out orders.dat -S sql01 -U etl -P{pw['b']} -c", pw["b"]),
        Secret("ipmitool-P", f"ipmitool -I lanplus -H 10.0.0.12 -U ADMIN -P {pw['c']} chassis status", pw["c"]),
        Secret("zip-P", f"zip -r -P {pw['d']} backup.zip ./exports", pw["d"]),
        Secret(
            "ldapsearch-w", f"ldapsearch -x -H ldap://dc1 -D 'cn=admin,dc=acme,dc=dev' -w {pw['e']} -b dc=acme", pw["e"]
        ),
        Secret("ldapadd-w-quoted", f"ldapadd -x -D cn=admin,dc=acme -w '{pw['f']}' -f users.ldif", pw["f"]),
        Secret("openssl-passin", f"openssl rsa -in server.key -out plain.key -passin pass:{pw['g']}", pw["g"]),
        Secret(
            "openssl-passout",
            f"openssl pkcs12 -export -in c.crt -inkey c.key -out c.p12 -passout pass:{pw['h']}",
            pw["h"],
        ),
        Secret("openssl-enc-k", f"openssl enc -aes-256-cbc -salt -in db.sql -out db.enc -pass pass:{pw['i']}", pw["i"]),
        Secret("gpg-passphrase", f"gpg --batch --passphrase {pw['j']} -d secrets.gpg", pw["j"]),
        Secret("gpg-passphrase-quoted", f'gpg --batch --yes --passphrase="{pw["k"]}" -c notes.txt', pw["k"]),
        Secret("az-login-p", f"az login -u ops@acme.dev -p {pw['l']}", pw["l"]),
        Secret("az-login-sp", f"az login --service-principal -u 8f1c-app -p {rnd['a']} --tenant acme.dev", rnd["a"]),
        Secret("sudo-S-echo", f"echo {pw['m']} | sudo -S apt-get update", pw["m"]),
        Secret("sudo-S-echo-quoted", f"echo '{pw['n']}' | sudo -S systemctl restart nginx", pw["n"]),
        Secret("net-user-add", f"net user svc_backup {pw['o']} /add", pw["o"]),
        Secret("net-use", f"net use Z: \\\\fs01\\share {pw['p']} /user:ACME\\jdoe", pw["p"]),
        Secret(
            "keytool-storepass", f"keytool -importcert -keystore app.jks -storepass {pw['q']} -file ca.crt", pw["q"]
        ),
        Secret("mongosh-p", f"mongosh 'mongodb://db1:27017/app' -u admin -p {pw['r']}", pw["r"]),
        Secret("htpasswd-b", f"htpasswd -b -c /etc/nginx/.htpasswd admin {pw['s']}", pw["s"]),
        Secret("smbclient-U", f"smbclient //fs01/share -U jdoe%{pw['t']}", pw["t"]),
        Secret("xfreerdp-p", f"xfreerdp /v:win01 /u:Administrator /p:{pw['u']}", pw["u"]),
        Secret("psexec-p", f"psexec \\\\win02 -u ACME\\admin -p {pw['v']} cmd", pw["v"]),
        Secret("7z-p", f"7z a -p{pw['w']} archive.7z ./reports", pw["w"]),
        Secret("unzip-P", f"unzip -P {pw['x']} payroll.zip", pw["x"]),
        Secret("rabbitmqctl-add-user", f"rabbitmqctl add_user deployer {pw['y']}", pw["y"]),
        Secret("powershell-securestring", f"$pw = ConvertTo-SecureString '{pw['z']}' -AsPlainText -Force", pw["z"]),
        Secret(
            "docker-password-stdin-echo", f"echo {rnd['b']} | docker login ghcr.io -u ci --password-stdin", rnd["b"]
        ),
        Secret("chpasswd", f"echo 'deploy:{rnd['c']}' | chpasswd", rnd["c"]),
        Secret(
            "wget-http-password",
            f"wget --http-user=ci --http-password={rnd['d']} https://nexus.acme.dev/a.tgz",
            rnd["d"],
        ),
        Secret(
            "vault-login-token-positional",
            f"VAULT_ADDR=https://vault:8200 vault login {'hvs.' + rnd['e'] + 'Zq8'}",
            rnd["e"],
        ),
        Secret("generic-api-key-flag", f"acmectl --api-key {rnd['f']}Kx9 deploy", rnd["f"]),
        Secret("oc-login-token", f"oc login --token=sha256~{rnd['g']}Wm3pLq https://api.ocp.acme.dev:6443", rnd["g"]),
        Secret("influx-password", f"influx -username admin -password {rnd['h']} -host metrics", rnd["h"]),
        Secret("ssh-keygen-N", f"ssh-keygen -t ed25519 -N '{rnd['i']}' -f ~/.ssh/deploy", rnd["i"]),
        Secret("cf-login-p", f"cf login -a api.run.acme.dev -u ops -p {rnd['j']}", rnd["j"]),
    ]


def _context() -> list[Secret]:
    """Passwords and keys whose only sign is where they stand."""
    pw = {n: _word_pw("ctx-" + n) for n in "abcdefghijklmnop"}
    rnd = {n: _alnum("ctx-" + n, 24) for n in "abcdefghij"}
    ssh_body = [_b64(f"sshbody{i}", 52) for i in range(6)]
    rsa_body = [_b64(f"rsabody{i}", 48) for i in range(5)]
    k8s_user = base64.b64encode(b"app-" + _alnum("k8su", 6).encode()).decode()
    k8s_pw = base64.b64encode(_alnum("k8sp", 20).encode()).decode()
    k8s_tls = _b64("k8stls", 120)
    semi = "Sm;" + _alnum("semi-h", 10) + ";x"
    return [
        Secret("pgpass-line", f"db.internal:5432:app:app_rw:{pw['a']}", pw["a"]),
        Secret("pgpass-wildcard", f"# ~/.pgpass\nlocalhost:*:*:postgres:{pw['b']}\n", pw["b"]),
        Secret(
            "password-is-words", "my password is purple monkey dishwasher, don't share it", "purple monkey dishwasher"
        ),
        Secret("password-is-words-quoted", 'my wifi password is "tall giraffe lemonade"', "tall giraffe lemonade"),
        Secret("password-was-changed-to", f"I changed my password to {pw['c']} this morning", pw["c"]),
        Secret(
            "passphrase-is", "the passphrase for the backup key is silver lantern orchard", "silver lantern orchard"
        ),
        Secret("requests-auth-tuple", f'requests.get(url, auth=("admin", "{pw["d"]}"))', pw["d"]),
        Secret("requests-auth-tuple-single", f"r = session.post(u, auth=('svc', '{pw['e']}'), timeout=5)", pw["e"]),
        Secret("http-basic-auth", f'auth = HTTPBasicAuth("ci", "{pw["f"]}")', pw["f"]),
        Secret("smtp-login", f"server.login('alerts@acme.dev', '{pw['g']}')", pw["g"]),
        Secret("aiohttp-basic-auth", f"aiohttp.BasicAuth('api', '{pw['h']}')", pw["h"]),
        Secret(
            "k8s-secret-data",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n"
            f"  username: {k8s_user}\n  password: {k8s_pw}\n",
            k8s_pw,
        ),
        Secret(
            "k8s-secret-other-key",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ndata:\n"
            f"  STRIPE_KEY: {_b64('k8s-stripe', 33)}\n  DSN: {_b64('k8s-dsn', 42)}\n",
            _b64("k8s-dsn", 42),
        ),
        Secret(
            "k8s-secret-tls",
            f"kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTi\n  tls.key: {k8s_tls}\n",
            k8s_tls[:60],
        ),
        Secret(
            "k8s-secret-username-only",
            f"kind: Secret\ndata:\n  db-user: {k8s_user}\n  db-host: ZGIuaW50ZXJuYWw=\n",
            k8s_user,
        ),
        Secret(
            "ssh-key-body-no-begin",
            "\n".join(["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", *ssh_body])
            + "\n-----END OPENSSH PRIVATE KEY-----",
            ssh_body[2],
        ),
        Secret(
            "ssh-key-body-no-markers",
            "here is the key:\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
            + "\n".join(ssh_body[::-1]),
            ssh_body[4],
        ),
        Secret(
            "rsa-key-body-no-begin",
            "MIIEowIBAAKCAQEA" + rsa_body[0][16:] + "\n" + "\n".join(rsa_body[1:]) + "\n-----END RSA PRIVATE KEY-----",
            rsa_body[3],
        ),
        Secret(
            "slack-webhook-no-scheme",
            f"post to hooks.slack.com/services/T0{_upper('wh1', 8)}/B0{_upper('wh2', 9)}/{_alnum('wh3', 24)}",
            _alnum("wh3", 24),
        ),
        Secret("password-with-semicolon-yaml", f"db:\n  password: {semi}\n", semi),
        Secret("password-with-semicolon-quoted-conn", f'Server=sql01;User Id=app;Password="{semi[::-1]}";', semi[::-1]),
        Secret("password-with-semicolon-prose", f"the root password is {pw['i']};{pw['j']}", pw["j"]),
        Secret(
            "password-with-semicolon-env", f"export DB_PASS='{pw['k']};{_alnum('semi-env', 6)}'", _alnum("semi-env", 6)
        ),
        Secret("wp-config-define", f"define( 'DB_PASSWORD', '{pw['l']}' );", pw["l"]),
        Secret("ansible-become-pass", f"ansible_become_pass: {pw['m']}", pw["m"]),
        Secret("ini-pass", f"[smtp]\nhost = mail.acme.dev\nuser = alerts\npass = {pw['n']}\n", pw["n"]),
        Secret("spring-datasource", f"spring.datasource.password={pw['o']}", pw["o"]),
        Secret(
            "docker-config-auth",
            f'{{"auths": {{"ghcr.io": {{"auth": "{_b64("dockerauth", 30)}"}}}}}}',
            _b64("dockerauth", 30),
        ),
        Secret("x-auth-token-header", f"X-Auth-Token: {rnd['a']}", rnd["a"]),
        Secret("authorization-token-scheme", f"Authorization: Token {rnd['b']}", rnd["b"]),
        Secret("query-access-token", f"GET /api/v2/export?format=csv&access_token={rnd['c']} 200", rnd["c"]),
        Secret(
            "session-id-with-aws-key",
            f"session_id=AKIA{_upper('sess-aws', 16)}-resume",
            "AKIA" + _upper("sess-aws", 16),
        ),
        Secret("session-id-with-ghp", f"resume sess_ghp_{_alnum('sess-ghp', 36)}", "ghp_" + _alnum("sess-ghp", 36)),
        Secret(
            "heroku-api-key-env", "HEROKU_API_KEY=8f14e45f-ceea-467f-a0e6-" + _hex("heroku", 12), _hex("heroku", 12)
        ),
        Secret(
            "terraform-aws-secret",
            f'provider "aws" {{\n  access_key = "AKIA{_upper("tf", 16)}"\n  secret_key = "{rnd["d"]}{rnd["e"][:16]}"\n}}',
            rnd["d"],
        ),
        Secret(
            "maven-settings-password",
            f"<server><id>nexus</id><username>ci</username><password>{pw['p']}</password></server>",
            pw["p"],
        ),
        Secret("dotenv-secret-plain", f"JWT_SECRET={rnd['f']}", rnd["f"]),
        Secret("git-credentials-line", f"https://ci-bot:{rnd['g']}@github.com", rnd["g"]),
        Secret("password-colon-in-prose", f"Password: {rnd['h'][:12]}", rnd["h"][:12]),
        Secret("passcode-sms", f"the door passcode is {_hex('door', 6)}#", _hex("door", 6)),
    ]


def heldout_secrets() -> list[Secret]:
    return _tokens() + _cli() + _context()


def _generated_ordinary() -> list[str]:
    """Ordinary texts full of hashes, ids and base64 that are not secrets."""
    out = []
    for i in range(15):
        sha = _hex(f"sha{i}", 40)
        out.append(
            [
                f"commit {sha}\nAuthor: Dev {i} <dev{i}@acme.dev>\nDate:   Mon Nov {i + 1} 10:00:00 2026",
                f"Reverted {sha[:7]} because it broke the nightly build.",
                f"git cherry-pick {sha} onto release/2.{i}",
                f"{sha} refs/heads/feature-{i}",
            ][i % 4]
        )
    for i in range(15):
        raw = _hex(f"uuid{i}", 32)
        uuid = f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:32]}"
        out.append(
            [
                f"request_id={uuid} status=200 duration_ms={i * 7 + 3}",
                f"Order {uuid} was refunded twice; see the ledger.",
                f"INSERT INTO jobs (id, state) VALUES ('{uuid}', 'queued');",
                f"X-Request-Id: {uuid}",
            ][i % 4]
        )
    for i in range(15):
        digest = _hex(f"digest{i}", 64)
        out.append(
            [
                f"sha256sum: {digest}  dist/app-{i}.tar.gz",
                f"image: ghcr.io/acme/api@sha256:{digest}",
                f"--hash=sha256:{digest}",
                f'etag "{digest[:32]}" did not change after the deploy',
            ][i % 4]
        )
    for i in range(14):
        text = [
            b"hello from the integration tests",
            b'{"user": "jane", "role": "viewer"}',
            b"The quick brown fox jumps over the lazy dog",
            b"line one\nline two\nline three",
        ][i % 4] + f" #{i}".encode()
        encoded = base64.b64encode(text).decode()
        out.append(
            [
                f"echo {encoded} | base64 -d",
                f'payload = base64.b64decode("{encoded}")',
                f"The fixture body is {encoded} (base64).",
                f'"data": "{encoded}"',
            ][i % 4]
        )
    return out


def _handwritten_ordinary() -> list[str]:
    return [
        # prose that says password, secret, token, key
        "The password reset email goes out through the notifications worker.",
        "My password manager fills the staging login form automatically.",
        "my password is too short according to the new validator",
        "The password is hashed with argon2id before it is stored.",
        "Your password was changed; if this wasn't you, contact support.",
        "Passwords must be at least 12 characters and are checked against HIBP.",
        "We never log the password, only whether authentication succeeded.",
        "The secret is rotated by the vault agent every 24 hours.",
        "Tokens expire after 15 minutes and are refreshed by the SDK.",
        "The API key lives in the vault under kv/acme/api; ask #infra for access.",
        "Keys are derived with HKDF from the master secret, never stored.",
        "Use a passphrase instead of a password for the SSH key.",
        "The password field is optional when SSO is enabled.",
        "The token count went from 512 to 1024 after the prompt change.",
        "Reset my password please, the old one expired.",
        "If the password is wrong three times the account locks for 10 minutes.",
        "the secret sauce here is batching the embeddings",
        "Token bucket: 100 tokens, refilled at 10 per second.",
        "Key rotation is documented in RUNBOOK.md section 4.",
        "What is the password policy for service accounts?",
        # code that names a secret without holding one
        "def connect(host: str, user: str, password: str | None = None) -> Connection:",
        "password = getpass.getpass(prompt='DB password: ')",
        "auth=(username, password)",
        "requests.get(url, auth=(user, os.environ['API_PASSWORD']))",
        "smtp.login(settings.SMTP_USER, settings.SMTP_PASSWORD)",
        "if not check_password(raw_password, user.password_hash):",
        "token = jwt.encode(payload, key, algorithm='HS256')",
        "secret = os.environ.get('APP_SECRET')",
        "api_key: str = Field(..., description='The provider API key')",
        "const apiKey = process.env.API_KEY;",
        "let token = localStorage.getItem('token');",
        "PASSWORD_HASHERS = ['django.contrib.auth.hashers.Argon2PasswordHasher']",
        "password_min_length: 12",
        "max_tokens: 4096",
        "secret_name: db-credentials",
        "tokenizer = AutoTokenizer.from_pretrained(model_dir)",
        "keys = sorted(d.keys(), key=str.lower)",
        "cache_key = f'session:{session_id}'",
        "for key, value in headers.items():",
        "self.password = None  # set by login()",
        'String password = request.getParameter("password");',
        "$password = $_POST['password'];",
        "user.set_password(form.cleaned_data['password1'])",
        "hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "ssl_context.load_cert_chain(certfile, keyfile, password=None)",
        "parser.add_argument('--password', help='prompted if omitted')",
        "DB_PASSWORD: ${{ secrets.DB_PASSWORD }}",
        "password: !vault |",
        'export PGPASSWORD="$(cat /run/secrets/pg)"',
        "kubectl create secret generic db --from-file=password=./pw.txt",
        # commands that take flags but no secret
        "scp -P 2222 build.tar.gz deploy@web1:/srv/releases/",
        "rsync -avP ./dist/ web1:/srv/app/",
        "rsync -P src/ dst/",
        "curl -s -o /dev/null -w '%{http_code}' https://acme.dev/health",
        "gunicorn -w 4 -b 0.0.0.0:8000 app:wsgi",
        "xargs -P 8 -n 1 ./process.sh < files.txt",
        "mysql -u root -p -h db.internal shop",
        "psql -h db -U app --no-password -c 'select 1'",
        "docker login ghcr.io -u ci --password-stdin < token.txt",
        "cat token.txt | gh auth login --with-token",
        "ssh -p 2222 deploy@web1.acme.dev",
        "ldapsearch -x -W -D cn=admin,dc=acme -b dc=acme",
        "openssl rsa -in server.key -passin env:KEY_PASS -out plain.key",
        "openssl pkcs12 -in c.p12 -passin file:/run/secrets/p12pass -nokeys",
        "gpg --batch --passphrase-fd 0 -d secrets.gpg < /run/secrets/gpgpass",
        "sudo -S true < /dev/null",
        "sudo systemctl restart nginx",
        "net user jdoe /domain",
        "az login --identity",
        "az login --use-device-code",
        "zip -r backup.zip ./exports",
        "unzip -l payroll.zip",
        "keytool -list -keystore app.jks",
        "mongosh 'mongodb://db1:27017/app' --quiet",
        "git push origin HEAD:refs/for/main",
        "pip install --require-hashes -r requirements.txt",
        "npm ci --prefer-offline --no-audit",
        "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d",
        "helm upgrade --install api ./chart --set image.tag=2.14.0",
        "terraform plan -var-file=prod.tfvars -out plan.out",
        # logs
        "2026-11-27T08:21:04Z INFO gateway GET /api/search 200 12ms",
        "2026-11-27 08:21:05,441 WARNING auth: invalid password for user 'jdoe' from 10.0.3.7",
        'ERROR: password authentication failed for user "app"',
        "Nov 27 08:21:06 web1 sshd[2211]: Accepted publickey for deploy from 10.0.0.5 port 51234 ssh2",
        "Nov 27 08:21:07 web1 sudo: jdoe : TTY=pts/0 ; PWD=/home/jdoe ; USER=root ; COMMAND=/usr/bin/apt update",
        "token refresh succeeded, next refresh in 840s",
        "KeyError: 'api_key'",
        "AuthenticationError: Incorrect API key provided (check your settings)",
        'Traceback (most recent call last):\n  File "app.py", line 12, in <module>\n    main()',
        "WARN  [pool-3] HikariPool-1 - Connection is not available, request timed out after 30000ms.",
        '10.0.0.7 - - [27/Nov/2026:08:21:09 +0000] "GET /login HTTP/1.1" 200 5120',
        "X-Amz-Cf-Id: hQ9bW0xX4c7oJ3l5XkQvY2Zl8s1nT6rPpA_uE3dGmVfK9zL0wYcB1A==",
        "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "Set up the session at 12:30:45 and it timed out at 12:45:00.",
        "root:x:0:0:root:/root:/bin/bash",
        "fe80::1ff:fe23:4567:890a%eth0",
        "listening on [::]:50051 and 127.0.0.1:8765",
        "db.internal:5432 is reachable from the worker subnet",
        # URLs and ids
        "https://github.com/acme/api/compare/v2.13.0...v2.14.0",
        "https://acme.atlassian.net/browse/OPS-1234",
        "https://user@example.com/path is a URL with a user but no password",
        "postgres://app@db.internal:5432/app?sslmode=require",
        "http://localhost:3000/callback?code=ok&state=home",
        "arn:aws:iam::123456789012:role/ci-deploy",
        "Instance i-0abcd1234ef567890 in subnet-0a1b2c3d failed its health check.",
        "Stripe charge ch_3MmlLrLkdIwHu7ix0snN0B15 for customer cus_NffrFeUfNV2Hib was captured.",
        "Slack channel C024BE91L, user U012AB3CD",
        "The GitHub node id MDQ6VXNlcjE= belongs to the octocat account.",
        "s3://acme-artifacts/builds/2026/11/27/app.tar.gz",
        "ghcr.io/acme/api:2.14.0",
        "See PR #4821 and issue #4790 for the discussion.",
        "The Sentry event 7b6a1c2e9f0d4e3a8b5c6d7e8f9a0b1c shows the same stack.",
        # public keys and certificates are not secrets
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl jdoe@laptop",
        "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqZ8yq4d1\n-----END PUBLIC KEY-----",
        "SSH key fingerprint SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8 (ED25519)",
        "known_hosts: github.com ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQCj7ndNxQowgcQnjshcLrqPEiiphnt+VTTvDP6mHBL9j1aNUkY4Ue1gvwnGLVlOhGeYrnZaMgRK6+PKCUXaDbC7qtbW8gIkhL7aGCsOr/C56SJMy/BCZfxd1nWzAOxSDPgVsmerOBYfNqltV9/hWCqBywINIR+5dIg6JTJ72pcEpEjcYgXkE2YEFXV1JHnsKgbLWNlhScqb2UmyRkQyytRLtL+38TGxkxCflmO+5Z8CSSNY7GidjMIZ7Q4zMjA2n1nGrlTDkzwDCsw+wqFPGQA179cnfGWOWRVruj16z6XyvxvjJwbz0wQZ75XK5tKSb7FNyeIEs4TT4jk+S4dhPeAUC5y+bDYirYgM4GC7uEnztnZyaVWQ7B381AK4Qdrwt51ZqExKbQpTUNn+EjqoTwvqNj4kqx5QUCI0ThS/YkOxJCXmPUWZbhjpCg56i+2aB6CmK2JGhn57K5mj0MNdBXA4/WnwH6XoPWJzK5Nyu2zB3nAZp+S5hpQs+p1vN1/wsjk=",
        # config that is not secret
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: search,viewer\n",
        "kind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\n# data is filled in by the sealed-secrets controller",
        "data:\n  - 1\n  - 2\n  - 3",
        "[database]\nhost = db.internal\nport = 5432\nname = app\n",
        "integrity: sha512-9KJsmLfQb1g5yLzKxHBrnLxrm9K4Ve2jKTKQnS3QyT9x2Ipm8a6n0Qo7Q4eYbE3T2Q8W8k7n3e1lQnU9bWv8Rw==",
        "github.com/stretchr/testify v1.9.0 h1:HtqpIVDClZ4nwg75+f6Lvsy/wHu+3BoSGCbBAcpTsTg=",
        '"resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz"',
        "image: postgres:16-alpine\nenvironment:\n  POSTGRES_PASSWORD_FILE: /run/secrets/pg",
        "<password>${env.NEXUS_PASSWORD}</password>",
        'password: "{{ vault_db_password }}"',
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
        "model: sentence-transformers/all-MiniLM-L6-v2",
        "Content-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        # prose and notes
        "We moved the cron to 02:00 UTC so it does not overlap with the backup.",
        "The flaky test was a race between the consumer and the rebalance.",
        "Remember: the staging DB is reset every Sunday night.",
        "The deploy key has read-only access to the infra repo.",
        "Use the service account, not your personal token, for CI.",
        "She said the secret to fast builds is the remote cache.",
        "Passkeys replace the password on the new login page.",
        "The key insight: cache invalidation happens on write, not read.",
        "Bump the version to 2.14.1 and tag it.",
        "Tests pass locally with Python 3.11 and 3.12; CI is pinned to 3.11.",
    ]


HELDOUT_SECRETS = heldout_secrets()
HELDOUT_ORDINARY = _handwritten_ordinary() + _generated_ordinary()


def kept_secrets(redact: Callable[[str], str]) -> list[str]:
    """The names of the forms whose secret material survives ``redact``."""
    return [s.name for s in HELDOUT_SECRETS if s.needle in redact(s.text)]


def changed_ordinary(redact: Callable[[str], str]) -> list[str]:
    """The ordinary texts ``redact`` changes (false positives)."""
    return [t for t in HELDOUT_ORDINARY if redact(t) != t]


assert len(HELDOUT_SECRETS) >= 100, len(HELDOUT_SECRETS)
assert len({s.name for s in HELDOUT_SECRETS}) == len(HELDOUT_SECRETS)
assert len({s.needle for s in HELDOUT_SECRETS}) == len(HELDOUT_SECRETS)
assert all(s.needle and s.needle in s.text for s in HELDOUT_SECRETS), [
    s.name for s in HELDOUT_SECRETS if s.needle not in s.text
]
assert len(HELDOUT_ORDINARY) == 200 and len(set(HELDOUT_ORDINARY)) == 200, len(HELDOUT_ORDINARY)
