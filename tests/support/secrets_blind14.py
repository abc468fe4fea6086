"""Fourteenth held-out secrets corpus (authentication and key material), written blind for issue 36.

Written blind: its author read no redaction rule, no earlier corpus and no secrets test; only the
head of ``secrets_corpus`` (``Secret``, ``ALNUM``, ``SeededDraw``, ``b64url_text``), the head of
``secrets_blind7`` (for the format) and ``secret_corpus_measure``.  Values are drawn from
``SeededDraw("blind14")`` or written by hand; none is live.  Anything shaped like a vendor key is
assembled from pieces.  The forms cover OAuth and OIDC flows, SAML and SSO configuration, gateway
keys, mTLS and certificates, SSH and GPG keys, signing keys, HSM and KMS material, password
managers and secret stores, wallets and exchanges, licence keys, session and CSRF tokens, magic
links, one-time codes and encrypted blobs with their key beside them, in several languages.  The
ordinary texts hold no secret but sit near them.  It must never be used to tune rules.
"""

from __future__ import annotations

import base64
import json

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw, b64url_text

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_B64URL = ALNUM + "-_"
_DIGITS = "0123456789"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

_DRAW = SeededDraw("blind14")
_s = _DRAW.chars


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


def _jwt(seed: str, claims: dict[str, object]) -> str:
    head = b64url_text(json.dumps({"alg": "RS256", "typ": "JWT", "kid": _s(seed + "k", 8, _HEX)}))
    body = b64url_text(json.dumps(claims))
    return head + "." + body + "." + _s(seed + "sig", 86, _B64URL)


def _pem(seed: str, label: str, n: int = 600) -> tuple[str, str]:
    """A private key block and its first body line (the needle)."""
    body = _DRAW.b64(seed, n)
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    block = "-----BEGIN " + label + "-----\n" + "\n".join(lines) + "\n-----END " + label + "-----"
    return block, lines[1]


_GH = "gh" + "p_"
_GHO = "gh" + "o_"
_SLK = "xo" + "xb-"
_STR = "sk" + "_live_"
_AKIA = "AK" + "IA"
_GOOG = "AI" + "za"
_NPM = "np" + "m_"
_PYPI = "pyp" + "i-"
_GLPAT = "glp" + "at-"
_HVS = "hv" + "s."


def _v(seed: str, n: int, alphabet: str = ALNUM) -> str:
    return _s(seed, n, alphabet)


_PEM_RSA, _PEM_RSA_LINE = _pem("rsa", "RSA PRIVATE KEY")
_PEM_OSSH, _PEM_OSSH_LINE = _pem("openssh", "OPENSSH PRIVATE KEY", 400)
_PEM_EC, _PEM_EC_LINE = _pem("ec", "EC PRIVATE KEY", 120)
_PEM_PK8, _PEM_PK8_LINE = _pem("pk8", "PRIVATE KEY", 900)
_PEM_PGP, _PEM_PGP_LINE = _pem("pgp", "PGP PRIVATE KEY BLOCK", 700)
_PEM_ENC, _PEM_ENC_LINE = _pem("encpk8", "ENCRYPTED PRIVATE KEY", 700)
_ID_TOKEN = _jwt("idt", {"iss": "https://login.example-idp.test", "sub": "u-4411", "aud": "spa", "nonce": "n1"})
_ACCESS_JWT = _jwt("acc", {"iss": "https://auth.internal.test", "scope": "read write", "sub": "svc-7"})
_REFRESH_JWT = _jwt("ref", {"typ": "refresh", "sub": "8812", "sid": "a1"})
_MNEMONIC = "canyon orbit velvet gravity oyster lumber spike dawn crater ribbon absent hollow"
_MNEMONIC_RU = "утро лампа ветер соль камень река"
_AES_KEY = _DRAW.b64("aeskey", 32)
_FERNET = base64.urlsafe_b64encode(_DRAW.raw("fernet", 32)).decode()
_AGE = "AGE-SECRET-KEY-1" + _v("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
_WIF = "5K" + _v("wif", 49, _B58)
_ETH = "0x" + _v("ethpk", 64, _HEX)
_SOL = _v("solkp", 87, _B58)

_FORMS: list[tuple[str, str, str]] = [
    # --- OAuth authorization codes ---------------------------------------------------------------
    (
        "oauth_code/redirect_url",
        "the callback landed on https://app.example.test/cb?code={v}&state=xyz123 and then 500'd",
        _v("c1", 40, _B64URL),
    ),
    (
        "oauth_code/server_log",
        '127.0.0.1 - - [12/Mar] "GET /oauth2/callback?state=af31&code={v} HTTP/1.1" 302 -',
        _v("c2", 32, _HEX),
    ),
    (
        "oauth_code/curl_exchange",
        "curl -X POST https://idp.test/token -d grant_type=authorization_code -d code={v} -d redirect_uri=http://localhost:3000",
        _v("c3", 43, _B64URL),
    ),
    (
        "oauth_code/spanish",
        "oye, me sale invalid_grant cuando canjeo el código {v}, ¿caduca tan rápido?",
        _v("c4", 24, _B64URL),
    ),
    (
        "oauth_code/device_flow",
        "device flow says: go to https://microsoft.test/devicelogin and enter {v} — it's been pending for a while",
        "HQ7K-9PLD",
    ),
    (
        "oauth_code/pkce_verifier",
        "my PKCE pair: verifier={v} challenge=S256 of that, does it look long enough?",
        _v("c6", 64, _B64URL),
    ),
    (
        "oauth_code/german_chat",
        "Der Callback bekommt den Code, hier der Auszug: ?code={v}&session_state=ok — warum ist er nach 30s ungültig?",
        _v("c7", 36, _B64URL),
    ),
    (
        "oauth_code/hash_fragment",
        "implicit flow still: window.location.hash was #access_token={v}&token_type=Bearer&expires_in=3599",
        "ya29." + _v("c8", 60, _B64URL),
    ),
    (
        "oauth_code/json_body",
        '{{"grant_type":"authorization_code","code":"{v}","client_id":"web-portal"}}',
        _v("c9", 28, ALNUM),
    ),
    # --- OAuth refresh tokens ---------------------------------------------------------------------
    (
        "oauth_refresh/json_response",
        '{{"access_token":"short","refresh_token":"{v}","expires_in":3600}}',
        _v("r1", 48, _B64URL),
    ),
    ("oauth_refresh/jwt_refresh", "saved in localStorage under rt: {v}", _REFRESH_JWT),
    ("oauth_refresh/google_style", "token.json has refresh_token = {v}", "1//0" + _v("r3", 60, _B64URL)),
    (
        "oauth_refresh/french",
        "le jeton de rafraîchissement que le SDK stocke est {v}, est-ce normal qu'il ne tourne jamais ?",
        _v("r4", 40, ALNUM),
    ),
    ("oauth_refresh/russian", "рефреш-токен из ответа: {v} — почему он сразу протухает?", _v("r5", 44, _B64URL)),
    ("oauth_refresh/env_line", "export MS_GRAPH_RT='{v}'", "0.AX" + _v("r6", 70, _B64URL)),
    (
        "oauth_refresh/no_keyword",
        "paste from devtools > Application > Cookies, third row value {v} (httpOnly off, I know)",
        _v("r7", 52, _B64URL),
    ),
    ("oauth_refresh/yaml", "credentials:\n  provider: dropbox\n  rt: {v}\n  scope: files.read", _v("r8", 64, ALNUM)),
    (
        "oauth_refresh/portuguese",
        "o refresh do spotify é {v}, alguém sabe por que retorna 400?",
        "AQ" + _v("r9", 60, _B64URL),
    ),
    # --- OAuth client secrets ---------------------------------------------------------------------
    (
        "client_secret/redirect_leak",
        "oops, our proxy logs this: GET /login?client_id=portal&client_secret={v}&redirect_uri=/home",
        _v("s1", 40, _B64URL),
    ),
    ("client_secret/azure_style", "AZURE_CLIENT_SECRET={v}", _v("s2", 3, ALNUM) + "8Q~" + _v("s2b", 34, _B64URL)),
    (
        "client_secret/basic_header",
        "Authorization: Basic {v}",
        base64.b64encode(("portal-web:" + _v("s3", 30)).encode()).decode(),
    ),
    (
        "client_secret/google_json",
        '{{"web":{{"client_id":"8812-abc.apps.googleusercontent.test","client_secret":"{v}"}}}}',
        "GOCSPX-" + _v("s4", 28, _B64URL),
    ),
    ("client_secret/settings_py", 'SOCIAL_AUTH_GITHUB_SECRET = "{v}"', _v("s5", 40, _HEX)),
    (
        "client_secret/japanese",
        "クライアントシークレットは {v} です。本番用なので共有しないでください",
        _v("s6", 32, ALNUM),
    ),
    ("client_secret/turkish", "istemci sırrı şu: {v} ama token endpoint yine 401 veriyor", _v("s7", 36, ALNUM)),
    (
        "client_secret/keycloak_export",
        '"clients": [{{"clientId": "admin-ui", "secret": "{v}", "publicClient": false}}]',
        _v("s8", 32, ALNUM),
    ),
    (
        "client_secret/spelled_split",
        "client secret split because chat mangles it: first half {v} second half comes next msg",
        _v("s9", 20, ALNUM),
    ),
    # --- OIDC / id tokens -------------------------------------------------------------------------
    ("oidc/id_token", "here's the id_token the SPA gets back: {v}", _ID_TOKEN),
    ("oidc/bearer_header", "Authorization: Bearer {v}", _ACCESS_JWT),
    ("oidc/nextauth_secret", "NEXTAUTH_SECRET={v}", _DRAW.b64("nextauth", 32)),
    ("oidc/session_secret_hindi", "मेरा OIDC session secret {v} है, क्या यह काफी लंबा है?", _v("o4", 32, ALNUM)),
    (
        "oidc/auth0_mgmt",
        "auth0 management token (expires tomorrow) {v}",
        _jwt("a0", {"iss": "https://tenant.auth0.test/", "gty": "client-credentials"}),
    ),
    ("oidc/polish", "token dostępu z Keycloaka: {v} — czemu API mówi, że wygasł?", _v("o6", 64, _B64URL)),
    ("oidc/cookie_secret", "oauth2-proxy --cookie-secret={v} --provider=oidc", _DRAW.b64("o2p", 24)),
    ("oidc/chinese", "这是我的 id token 签名密钥：{v}，为什么验证失败？", _v("o8", 44, ALNUM)),
    # --- SAML ------------------------------------------------------------------------------------
    ("saml/sp_key_pem", "SP signing key for the SAML app:\n" + _PEM_RSA, _PEM_RSA_LINE),
    (
        "saml/assertion_response",
        "the SAMLResponse param from the POST, base64: SAMLResponse={v}",
        _DRAW.b64("samlresp", 180),
    ),
    ("saml/python_settings", "'sp': {{'privateKey': '{v}', 'x509cert': ''}}", _DRAW.b64("saml3", 120)),
    ("saml/adfs_password", "ADFS service account svc_adfs / {v}", "Winter2024!adfs"),
    (
        "saml/french",
        "la clé privée du SP est dans sp.key mais voici son contenu pour debug : {v}",
        _DRAW.b64("saml5", 90),
    ),
    ("saml/simplesaml_secret", "$config['secretsalt'] = '{v}';", _v("saml6", 32, _LOWER)),
    ("saml/auth_password", "$config['auth.adminpassword'] = '{v}';", "kiwi-lantern-88"),
    ("saml/shibboleth", "sealer key for shibboleth: keystore pass {v}", "idp-sealer-Pw77"),
    # --- SSO configuration -----------------------------------------------------------------------
    ("sso/okta_api_token", "OKTA_API_TOKEN={v}", "00" + _v("sso1", 40, _B64URL)),
    ("sso/ldap_bind", "bind_dn = cn=readonly,dc=corp,dc=test\nbind_password = {v}", "R3ad0nly#Bind"),
    ("sso/ldap_url", "LDAP_URI=ldaps://svc_sso:{v}@dc01.corp.test:636", "pB9-xy!kk2"),
    (
        "sso/kerberos_keytab_pass",
        "ktutil: addent -password -p HTTP/web.corp.test -k 1 -e aes256 (I typed {v})",
        "Tequila.Sunrise9",
    ),
    (
        "sso/german_admin",
        "Das Admin-Passwort für das SSO-Portal ist jetzt {v}, bitte nicht weitergeben",
        "Sonnenblume!2025",
    ),
    ("sso/scim_token", "SCIM provisioning bearer for Entra: {v}", _v("sso6", 48, ALNUM)),
    (
        "sso/dex_static_client",
        "staticClients:\n- id: grafana\n  secret: {v}\n  redirectURIs: ['https://grafana.test/login/generic_oauth']",
        _v("sso7", 24, ALNUM),
    ),
    ("sso/cas_hard", "cas.tgc.crypto.encryption.key {v}", _v("sso8", 43, _B64URL)),
    # --- API gateway keys ------------------------------------------------------------------------
    (
        "gateway/x_api_key",
        "curl -H 'x-api-key: {v}' https://abc123.execute-api.us-east-1.amazonaws.test/prod/items",
        _v("g1", 40, ALNUM),
    ),
    ("gateway/kong_consumer", "kong: consumer mobile-app key-auth key={v}", _v("g2", 32, ALNUM)),
    ("gateway/apigee_query", "GET /v1/weather?apikey={v}&city=lisbon", _v("g3", 32, ALNUM)),
    ("gateway/azure_apim", "Ocp-Apim-Subscription-Key: {v}", _v("g4", 32, _HEX)),
    ("gateway/google_key", "maps still says REQUEST_DENIED with key {v}", _GOOG + "Sy" + _v("g5", 33, _B64URL)),
    ("gateway/russian", "ключ от шлюза: {v}, на проде работает, на стейдже нет", _v("g6", 36, ALNUM)),
    ("gateway/tyk_hard", "tyk dashboard -> keys -> {v} (the one for partner acme)", _v("g7", 56, _LOWER)),
    ("gateway/spanish_header", "le pasé la cabecera apikey={v} y sigue diciendo 403", _v("g8", 28, ALNUM)),
    ("gateway/rapidapi", "X-RapidAPI-Key: {v}", _v("g9", 50, _LOWER)),
    # --- mTLS and certificates -------------------------------------------------------------------
    ("mtls/client_key_pem", "client.key for the mtls handshake:\n" + _PEM_EC, _PEM_EC_LINE),
    ("mtls/pkcs8_pem", "nginx ssl_certificate_key contents:\n" + _PEM_PK8, _PEM_PK8_LINE),
    ("mtls/pfx_password", "openssl pkcs12 -in client.pfx -out client.pem -passin pass:{v}", "Cert!Export22"),
    (
        "mtls/java_keystore",
        "-Djavax.net.ssl.keyStorePassword={v} -Djavax.net.ssl.keyStore=/opt/app/client.jks",
        "changeit-not-2b",
    ),
    ("mtls/encrypted_pem_pass", "the key below is encrypted, passphrase is {v}\n" + _PEM_ENC, _PEM_ENC_LINE),
    ("mtls/encrypted_pem_phrase", "ENCRYPTED PRIVATE KEY passphrase (separately): {v}", "blue-otter-cathedral"),
    (
        "mtls/k8s_tls_secret",
        "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTi...\n  tls.key: {v}",
        _DRAW.b64("k8stls", 96),
    ),
    ("mtls/german_pfx", "Das PFX-Kennwort vom Zertifikat ist {v}", "Zertifikat2024"),
    ("mtls/portuguese", "a senha do keystore .p12 é {v}, o Spring não consegue abrir", "s3nh4Keystore"),
    ("mtls/chinese", "证书私钥密码是 {v}", "zhengshu#8866"),
    # --- SSH -------------------------------------------------------------------------------------
    ("ssh/openssh_key", "this is my id_ed25519 (don't worry it's a throwaway):\n" + _PEM_OSSH, _PEM_OSSH_LINE),
    (
        "ssh/passphrase_prompt",
        "Enter passphrase for key '/home/dev/.ssh/id_rsa': {v}\nIdentity added",
        "correct-horse-battery",
    ),
    ("ssh/sshpass", "sshpass -p '{v}' ssh deploy@10.0.4.12", "d3pl0y!box"),
    ("ssh/ansible_inventory", "[web]\n10.0.0.5 ansible_user=root ansible_ssh_pass={v}", "R00tPw_web5"),
    ("ssh/turkish", "sunucunun ssh şifresi {v} ama bağlanamıyorum", "Ankara1923x"),
    ("ssh/polish", "hasło do klucza SSH to {v}, ssh-add pyta za każdym razem", "kluczyk.Zielony7"),
    ("ssh/putty_ppk", "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPrivate-Lines: 14\n{v}", _DRAW.b64("ppk", 48)),
    ("ssh/paramiko", "client.connect('bastion', username='ops', password='{v}')", "Bastion#2026"),
    ("ssh/agent_forward_hard", "ssh -A ops@jump then su - with {v}", "hunter7jump"),
    ("ssh/japanese", "SSH鍵のパスフレーズは {v} です", "sakura-yuki-42"),
    # --- GPG -------------------------------------------------------------------------------------
    ("gpg/private_block", "exported with gpg --export-secret-keys --armor:\n" + _PEM_PGP, _PEM_PGP_LINE),
    (
        "gpg/passphrase_cli",
        "gpg --batch --pinentry-mode loopback --passphrase '{v}' --sign release.tar.gz",
        "Release.Signer.2026",
    ),
    ("gpg/ci_env", "GPG_PASSPHRASE: {v}", "maven-central-pass"),
    (
        "gpg/gradle_props",
        "signing.keyId=24875D73\nsigning.password={v}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg",
        "Gradle$ign99",
    ),
    ("gpg/russian", "пароль от gpg-ключа для подписи пакетов: {v}", "podpis-Paket7"),
    ("gpg/spanish", "la frase de paso de mi clave GPG es {v}", "gato verde saltarin"),
    ("gpg/pass_store_hard", "pass show infra/gpg-master\n{v}", "Qm7!vLp2xR"),
    # --- signing keys (apps, packages) ----------------------------------------------------------
    ("signing/android_gradle", "storePassword '{v}'\nkeyAlias 'upload'\nkeyPassword 'same as store'", "AndroidUpl0ad!"),
    ("signing/keystore_props", "storeFile=upload.jks\nstorePassword=android\nkeyPassword={v}", "k3yP@ssUpload"),
    ("signing/apple_p8", "App Store Connect API key AuthKey_7XQ2.p8 content: {v}", _DRAW.b64("p8", 100)),
    (
        "signing/apple_app_specific",
        "notarytool --apple-id dev@corp.test --password {v}",
        _v("asp1", 4, "abcdefghijklmnopqrstuvwxyz")
        + "-"
        + _v("asp2", 4, "abcdefghijklmnopqrstuvwxyz")
        + "-"
        + _v("asp3", 4, "abcdefghijklmnopqrstuvwxyz")
        + "-"
        + _v("asp4", 4, "abcdefghijklmnopqrstuvwxyz"),
    ),
    ("signing/cosign", "COSIGN_PASSWORD={v} cosign sign --key cosign.key ghcr.io/acme/api:1.4", "cosign-pw-7731"),
    (
        "signing/minisign_hard",
        "minisign secret key (untrusted comment: minisign encrypted secret key)\n{v}",
        "RWRTY0Iy" + _DRAW.b64("minisign", 120),
    ),
    ("signing/npm_token", "//registry.npmjs.org/:_authToken={v}", _NPM + _v("npm", 36)),
    (
        "signing/pypi_token",
        "[pypi]\nusername = __token__\npassword = {v}",
        _PYPI + "AgEIcHlwaS5vcmc" + _v("pypi", 60, _B64URL),
    ),
    (
        "signing/windows_pfx",
        "signtool sign /f codesign.pfx /p {v} /tr http://timestamp.digicert.test app.exe",
        "S1gnT00l#Pass",
    ),
    ("signing/french_sparkle", "clé privée EdDSA de Sparkle pour les mises à jour : {v}", _DRAW.b64("sparkle", 32)),
    # --- HSM / KMS -------------------------------------------------------------------------------
    (
        "hsm/pkcs11_pin",
        "pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --login --pin {v} --list-objects",
        "84731902",
    ),
    ("hsm/so_pin", "softhsm2-util --init-token --slot 0 --label ca --so-pin {v} --pin 1234-but-changed", "55120987"),
    ("hsm/yubihsm_auth", "yubihsm> session open 1 {v}", "password-yubi-Q7"),
    ("hsm/german", "Die HSM-PIN für den Partition-Login lautet {v}", "46219073"),
    ("hsm/cloudhsm", "loginHSM CU crypto_user {v}", "Cl0udHSM-cu!"),
    (
        "kms/data_key_plaintext",
        '{{"KeyId":"arn:aws:kms:eu-west-1:111122223333:key/abcd","Plaintext":"{v}","CiphertextBlob":"AQIDAHh..."}}',
        _DRAW.b64("kmsdk", 32),
    ),
    ("kms/local_master", "sops local age key for the kms fallback: {v}", _AGE),
    (
        "kms/gcp_sa_key",
        '{{"type": "service_account", "private_key_id": "{v}", "client_email": "kms@proj.iam.gserviceaccount.test"}}',
        _v("gsa", 40, _HEX),
    ),
    ("kms/aws_pair", "aws_access_key_id = {v}\naws_secret_access_key = (next line)", _AKIA + _v("akia", 16, _UPPER)),
    ("kms/aws_secret", "aws_secret_access_key = {v}", _v("awss", 40, ALNUM + "/+")),
    ("kms/vault_transit_hard", "exported transit key v3 -> {v}", _DRAW.b64("transit", 32)),
    ("kms/hindi", "KMS का master key यह है: {v}", _DRAW.b64("kmshi", 24)),
    # --- password managers ----------------------------------------------------------------------
    ("pwmanager/bw_session", 'export BW_SESSION="{v}"', _DRAW.b64("bws", 64)),
    ("pwmanager/op_service_account", "OP_SERVICE_ACCOUNT_TOKEN={v}", "ops_" + _v("ops", 120, _B64URL)),
    ("pwmanager/master_pw", "my bitwarden master password is {v} and now I can't log in", "Purple.Elephant.Dances.77"),
    (
        "pwmanager/keepass_cli",
        "keepassxc-cli show -s vault.kdbx db/prod  # it asked for the db password, I typed {v}",
        "kdbx-Master-2021",
    ),
    (
        "pwmanager/lastpass_export",
        "url,username,password,extra,name\nhttps://console.corp.test,admin,{v},,console",
        "Consol3Adm!n",
    ),
    (
        "pwmanager/1password_secret_key",
        "1Password Secret Key: {v}",
        "A3-"
        + _v("op1", 6, _UPPER)
        + "-"
        + _v("op2", 6, _UPPER)
        + "-"
        + _v("op3", 5, _UPPER)
        + "-"
        + _v("op4", 5, _UPPER)
        + "-"
        + _v("op5", 5, _UPPER)
        + "-"
        + _v("op6", 5, _UPPER),
    ),
    ("pwmanager/spanish", "la contraseña maestra de KeePass es {v}", "TortugaLenta#9"),
    ("pwmanager/japanese", "パスワードマネージャーのマスターパスワード：{v}", "tanuki_no_mori88"),
    ("pwmanager/hard_list", "vault items:\n- github (2fa on)\n- router: {v}\n- nas: ask Tom", "admin123router"),
    # --- secret stores ---------------------------------------------------------------------------
    ("secretstore/vault_token", "VAULT_TOKEN={v} vault kv get secret/app", _HVS + _v("hvs", 24)),
    ("secretstore/vault_unseal", "Unseal Key 1: {v}\nUnseal Key 2: (kept by Ana)", _DRAW.b64("unseal", 33)),
    ("secretstore/vault_root", "Initial Root Token: {v}", _HVS + _v("root", 24)),
    (
        "secretstore/approle",
        "vault write auth/approle/login role_id=1a2b-not-secret secret_id={v}",
        _v("sid1", 8, _HEX)
        + "-"
        + _v("sid2", 4, _HEX)
        + "-"
        + _v("sid3", 4, _HEX)
        + "-"
        + _v("sid4", 4, _HEX)
        + "-"
        + _v("sid5", 12, _HEX),
    ),
    ("secretstore/doppler", "DOPPLER_TOKEN=dp.st.prd.{v}", _v("doppler", 40)),
    ("secretstore/infisical", "infisical login --token st.{v}", _v("inf", 48, _LOWER)),
    (
        "secretstore/sealed_secret_key",
        "kubectl get secret -n kube-system sealed-secrets-key -o yaml\n  tls.key: {v}",
        _DRAW.b64("sealed", 80),
    ),
    ("secretstore/russian", "токен для Vault: {v}", "s." + _v("vru", 24)),
    (
        "secretstore/aws_sm_output",
        '{{"Name": "prod/db", "SecretString": "{{\\"password\\":\\"{v}\\"}}"}}',
        "Pr0dDb!Secret",
    ),
    # --- crypto wallets --------------------------------------------------------------------------
    ("wallet/mnemonic", "restored the test wallet with: {v}", _MNEMONIC),
    ("wallet/mnemonic_numbered", "1. orchid 2. tunnel 3. {v} 4. silent", "mosquito"),
    ("wallet/eth_private_key", "PRIVATE_KEY={v}", _ETH),
    ("wallet/hardhat", "networks: {{ sepolia: {{ url: RPC, accounts: ['{v}'] }} }}", "0x" + _v("hh", 64, _HEX)),
    ("wallet/wif", 'bitcoin-cli importprivkey {v} "legacy"', _WIF),
    ("wallet/solana_keypair", "solana keypair (base58) for the devnet bot: {v}", _SOL),
    ("wallet/keystore_pw", "geth account unlock 0x9f2c... --password <(echo {v})", "geth-unl0ck-pw"),
    ("wallet/russian_seed", "сид-фраза от тестового кошелька: {v}", _MNEMONIC_RU),
    ("wallet/portuguese", "a chave privada da carteira é {v}, cuidado", _v("ptw", 64, _HEX)),
    ("wallet/xprv", "derivation root: {v}", "xprv9s21ZrQH143K" + _v("xprv", 95, _B58)),
    # --- exchanges -------------------------------------------------------------------------------
    ("exchange/binance", "BINANCE_API_KEY=public-ish\nBINANCE_SECRET={v}", _v("bin", 64)),
    ("exchange/ccxt", "ccxt.kraken({{'apiKey': 'k-pub', 'secret': '{v}'}})", _DRAW.b64("kraken", 64)),
    ("exchange/coinbase_pem", "coinbase cdp key name organizations/x/apiKeys/y, privateKey: {v}", _DRAW.b64("cdp", 48)),
    ("exchange/passphrase", "OKX passphrase {v}", "okx.Trading.99"),
    ("exchange/turkish", "borsa API gizli anahtarım: {v}", _v("btk", 48)),
    ("exchange/hard_tuple", "keys = ('bybit', 'Xk2', '{v}')", _v("bybit", 36)),
    ("exchange/withdraw_2fa_chinese", "提现的资金密码是 {v}", "882301"),
    # --- licence keys ----------------------------------------------------------------------------
    (
        "licence/windows",
        "slmgr /ipk {v}",
        "-".join(_v("win" + str(i), 5, "BCDFGHJKMPQRTVWXY2346789") for i in range(5)),
    ),
    ("licence/jetbrains", "activation code (from the email) {v}", _v("jb", 10, _UPPER) + "-" + _DRAW.b64("jb", 90)),
    (
        "licence/sublime",
        "----- BEGIN LICENSE -----\nDev Team\nSingle User License\nEA7E-{v}\n----- END LICENSE ------",
        _v("subl", 6, _DIGITS),
    ),
    ("licence/env", "SIDEKIQ_PRO_CREDS={v}", _v("skq", 8, _HEX) + ":" + _v("skq2", 8, _HEX)),
    (
        "licence/german",
        "der Lizenzschlüssel für die Enterprise-Version: {v}",
        "-".join(_v("lic" + str(i), 4, _UPPER) for i in range(4)),
    ),
    (
        "licence/fontawesome",
        "@fortawesome:registry=https://npm.fontawesome.test/\n//npm.fontawesome.test/:_authToken={v}",
        _v("fa1", 8, _UPPER) + "-" + _v("fa2", 4, _UPPER) + "-" + _v("fa3", 4, _UPPER) + "-" + _v("fa4", 12, _UPPER),
    ),
    ("licence/hard", "serial {v} (office copy)", "".join(_v("ser", 20, _UPPER))),
    ("licence/polish", "klucz licencyjny do IDE: {v}", "-".join(_v("pl" + str(i), 5, _UPPER) for i in range(3))),
    # --- sessions -------------------------------------------------------------------------------
    ("session/cookie_header", "Cookie: theme=dark; sessionid={v}; lang=en", _v("sess1", 32, _LOWER)),
    (
        "session/set_cookie",
        "Set-Cookie: connect.sid=s%3A{v}; Path=/; HttpOnly",
        _v("sess2", 32, _B64URL) + "." + _v("sess2b", 43, _B64URL),
    ),
    ("session/php", "PHPSESSID={v}", _v("php", 26, _LOWER)),
    ("session/rails_secret", "secret_key_base: {v}", _v("rails", 128, _HEX)),
    ("session/flask", "app.secret_key = b'{v}'", _v("flask", 32, _HEX)),
    (
        "session/django",
        "SECRET_KEY = 'django-insecure-{v}'",
        _v("dj", 50, "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"),
    ),
    ("session/har_hard", '{{"name": "__Secure-next-auth.session-token", "value": "{v}"}}', _v("har", 96, _B64URL)),
    ("session/french", "mon cookie de session (copié du navigateur) : {v}", _v("frs", 40, _HEX)),
    ("session/hindi", "ब्राउज़र से session cookie: {v}", _v("his", 36, ALNUM)),
    ("session/github_cookie", "user_session={v}", _v("ghs", 48, _B64URL)),
    # --- CSRF ---------------------------------------------------------------------------------
    ("csrf/hidden_input", '<input type="hidden" name="csrfmiddlewaretoken" value="{v}">', _v("csrf1", 64)),
    ("csrf/header", "X-CSRF-Token: {v}", _v("csrf2", 44, _B64URL)),
    ("csrf/laravel", '<meta name="csrf-token" content="{v}">', _v("csrf3", 40)),
    ("csrf/xsrf_cookie", "XSRF-TOKEN={v}%3D; Path=/", _v("csrf4", 60, ALNUM)),
    ("csrf/spanish", "el token CSRF que devuelve el login es {v} pero el POST falla", _v("csrf5", 32, _HEX)),
    ("csrf/rails_authenticity", "authenticity_token={v}&user%5Bemail%5D=a%40b.test", _v("csrf6", 86, _B64URL)),
    ("csrf/hard_form", "form body: _token={v}&title=hello", _v("csrf7", 40)),
    # --- magic links / reset links ---------------------------------------------------------------
    (
        "magiclink/login",
        "clicked the magic link https://app.test/auth/magic?token={v}&email=a%40b.test and it said expired",
        _v("ml1", 48, _B64URL),
    ),
    (
        "magiclink/supabase",
        "https://proj.supabase.test/auth/v1/verify?token={v}&type=magiclink&redirect_to=http://localhost:3000",
        _v("ml2", 56, _HEX),
    ),
    (
        "magiclink/reset",
        "password reset email link: https://corp.test/reset/{v}/ — 404 on click",
        _v("ml3", 3, _LOWER) + "-" + _v("ml3b", 32, _HEX),
    ),
    ("magiclink/invite", "invite url https://slack.test/join/shared_invite/{v}", "zt-" + _v("ml4", 28, _LOWER)),
    ("magiclink/german", "Der Bestätigungslink lautet https://shop.test/confirm/{v}", _v("ml5", 40, _B64URL)),
    (
        "magiclink/presigned",
        "share this one: https://bucket.s3.test/report.pdf?X-Amz-Credential=x&X-Amz-Signature={v}",
        _v("ml6", 64, _HEX),
    ),
    ("magiclink/russian", "ссылка для входа: https://portal.test/login?otk={v}", _v("ml7", 32, ALNUM)),
    ("magiclink/email_verify_hard", "the link ends in …/verify/{v} if you want to test it", _v("ml8", 20, _B64URL)),
    # --- one-time codes -------------------------------------------------------------------------
    ("otp/sms", "the SMS just said: Your verification code is {v}. Don't share it.", "482913"),
    ("otp/spanish", "me llegó el código {v} por SMS, ¿lo meto en el endpoint?", "731046"),
    ("otp/german", "Bestätigungscode: {v}", "590218"),
    ("otp/french_spaced", "le code à usage unique est {v}", "8 3 1 9 2 7"),
    ("otp/backup_codes", "GitHub recovery codes:\n{v}\n9a1c3-7d2e0", _v("bk1", 5, _HEX) + "-" + _v("bk2", 5, _HEX)),
    ("otp/japanese", "ワンタイムパスワードは {v} です", "204761"),
    ("otp/hard_bare", "ok go: {v}", "668014"),
    ("otp/turkish", "doğrulama kodu {v} geldi", "917352"),
    ("otp/portuguese", "o código de verificação do banco é {v}", "440187"),
    ("otp/email_code_hard", "Subject: Sign in to Notion — code {v}", "ZQ-73-KX"),
    # --- TOTP seeds ------------------------------------------------------------------------------
    (
        "totp/otpauth",
        "otpauth://totp/ACME:dev@corp.test?secret={v}&issuer=ACME",
        _v("totp1", 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ),
    (
        "totp/setup_key",
        "Can't scan the QR? Enter this setup key: {v}",
        " ".join(_v("totp2" + str(i), 4, "abcdefghijklmnopqrstuvwxyz234567") for i in range(8)),
    ),
    ("totp/pyotp", "pyotp.TOTP('{v}').now()", _v("totp3", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    ("totp/russian", "секрет для Google Authenticator: {v}", _v("totp4", 32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    (
        "totp/aegis_export",
        '{{"type":"totp","name":"aws-root","info":{{"secret":"{v}","digits":6}}}}',
        _v("totp5", 26, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    ),
    ("totp/hard", "mfa seed aws root {v}", _v("totp6", 40, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    # --- encrypted blobs with key beside ---------------------------------------------------------
    ("encblob/fernet_key", "Fernet key {v} and the token gAAAAABl... decrypts fine locally", _FERNET),
    ("encblob/aes_key_iv", "ciphertext=U2FsdGVkX1+abc...  key={v} iv=00112233445566778899aabbccddeeff", _AES_KEY),
    ("encblob/openssl_enc", "openssl enc -d -aes-256-cbc -in backup.enc -out backup.tar -k {v}", "Backup-Enc-2026!"),
    (
        "encblob/ansible_vault",
        "ansible-vault view group_vars/prod.yml --vault-password-file <(echo {v})",
        "vault-ansible-prod",
    ),
    ("encblob/jasypt", "jasypt.encryptor.password={v}", "JasyptMaster77"),
    ("encblob/rails_master_key", "config/master.key: {v}", _v("rmk", 32, _HEX)),
    (
        "encblob/age_identity",
        "# created: 2026-01-02\n# public key: age1qlz...\n{v}",
        "AGE-SECRET-KEY-1" + _v("age2", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    ),
    ("encblob/chinese", "加密文件的密钥：{v}，密文在附件里", _v("zhk", 32, _HEX)),
    ("encblob/zip_password", "7z x dump.7z -p{v}", "dump-zip-pass-4"),
    ("encblob/german", "Die Datei ist mit GPG symmetrisch verschlüsselt, Passwort: {v}", "Kartoffelsalat99"),
    ("encblob/laravel_app_key", "APP_KEY=base64:{v}", _DRAW.b64("lvk", 32)),
    # --- webhooks & signing secrets -------------------------------------------------------------
    ("webhook/stripe", "STRIPE_WEBHOOK_SECRET={v}", "wh" + "sec_" + _v("whs", 32)),
    ("webhook/github", "webhook secret on the repo settings page: {v}", _v("ghw", 40, _HEX)),
    ("webhook/slack_signing", "SLACK_SIGNING_SECRET={v}", _v("sls", 32, _HEX)),
    ("webhook/svix", "svix secret {v}", "whsec_" + _DRAW.b64("svix", 24)),
    ("webhook/jwt_hs256", "JWT_SECRET={v}", "supersecretjwt-" + _v("jwts", 12, _LOWER)),
    ("webhook/polish", "sekret webhooka z panelu: {v}", _v("plw", 32, _HEX)),
    # --- vendor tokens in auth contexts ---------------------------------------------------------
    ("vendor/github_pat", "git clone https://{v}@github.com/acme/private.git", _GH + _v("ghp", 36)),
    ("vendor/github_oauth", "gh auth status shows token: {v}", _GHO + _v("gho", 36)),
    ("vendor/gitlab_pat", "CI_JOB: curl --header 'PRIVATE-TOKEN: {v}'", _GLPAT + _v("glpat", 20, _B64URL)),
    (
        "vendor/slack_bot",
        "SLACK_BOT_TOKEN={v}",
        _SLK + _v("sl1", 12, _DIGITS) + "-" + _v("sl2", 13, _DIGITS) + "-" + _v("sl3", 24),
    ),
    ("vendor/stripe_live", "stripe.api_key = '{v}'", _STR + _v("stripe", 24)),
    ("vendor/spanish_pat", "mi token personal de GitHub es {v}, ¿por qué me da 403?", _GH + _v("ghpes", 36)),
    ("vendor/docker_login", "echo {v} | docker login -u acme --password-stdin", "dckr_pat_" + _v("dckr", 27, _B64URL)),
    ("vendor/npmrc_basic", "_auth={v}", base64.b64encode(("ci-bot:" + _v("npmauth", 16)).encode()).decode()),
    # --- passwords told in prose (auth) ---------------------------------------------------------
    ("prose/english_admin", "the new admin login for the staging keycloak is admin / {v}", "Keycl0ak-Stg!"),
    ("prose/spanish", "la clave del wifi de la oficina es {v}", "PerroAzul2026"),
    ("prose/german", "Kennwort für den Root-Account: {v}", "Fichtenwald#3"),
    ("prose/french", "le mot de passe de la base c'est {v}", "fromage-bleu-42"),
    ("prose/portuguese", "a senha do usuário deploy é {v}", "Cafezinho!77"),
    ("prose/russian", "пароль от админки: {v}", "Medved2025!"),
    ("prose/chinese", "数据库密码是 {v}", "mima123456!"),
    ("prose/japanese", "管理者パスワードは {v} に変更しました", "Fuji-san-3776"),
    ("prose/hindi", "सर्वर का पासवर्ड {v} है", "Namaste@2026"),
    ("prose/turkish", "veritabanı parolası {v}", "Bogazici.34"),
    ("prose/polish", "hasło do panelu to {v}", "Pierogi!2026"),
    ("prose/spelled_out", "password spelled out: {v}", "tango-seven-lima-echo-nine"),
    ("prose/split_lines", "pw is long so two parts: first {v}\nthen the rest 'Xq9'", "Marmalade77"),
    ("prose/lowercase_hard", "same as before but with a 2 at the end, so {v}", "springtime2"),
    ("prose/italian", "la password del server è {v}", "Gelato!Limone8"),
    ("prose/dutch", "het wachtwoord van de NAS is {v}", "Tulpen!Veld22"),
    # --- connection strings with auth ------------------------------------------------------------
    ("connstr/postgres", "DATABASE_URL=postgres://app:{v}@db.internal:5432/app", "pgApp-7hR2x"),
    ("connstr/mongo_srv", "mongodb+srv://admin:{v}@cluster0.abcd.mongodb.test/test", "M0ngoAdm1n"),
    ("connstr/redis", "REDIS_URL=rediss://default:{v}@cache.test:6380", _v("redis", 32)),
    ("connstr/amqp", "amqp://guest2:{v}@rabbit:5672/", "rabbit-Pw-19"),
    ("connstr/smtp", "SMTP_PASSWORD={v}", _v("smtp", 16, "abcdefghijklmnopqrstuvwxyz")),
    ("connstr/ldap_ru", "строка подключения: ldap://cn=admin:{v}@ldap.corp.test", "Sekret-LDAP5"),
    ("connstr/jdbc", "jdbc:sqlserver://db;user=sa;password={v};encrypt=true", "Sql$erver2022"),
    # --- CI / deploy auth -----------------------------------------------------------------------
    ("ci/gh_actions_log", 'Run echo "TOKEN=${{{{ secrets.DEPLOY }}}}"\nTOKEN={v}', _v("cia", 40)),
    (
        "ci/heroku",
        "HEROKU_API_KEY={v}",
        _v("her1", 8, _HEX)
        + "-"
        + _v("her2", 4, _HEX)
        + "-"
        + _v("her3", 4, _HEX)
        + "-"
        + _v("her4", 4, _HEX)
        + "-"
        + _v("her5", 12, _HEX),
    ),
    (
        "ci/terraform_cloud",
        'credentials "app.terraform.io" {{ token = "{v}" }}',
        _v("tfc", 14) + ".atlasv1." + _v("tfc2", 60),
    ),
    ("ci/circleci", "CIRCLE_TOKEN={v}", "CCIPAT_" + _v("cci", 22) + "_" + _v("cci2", 40, _HEX)),
    (
        "ci/k8s_sa_token",
        "kubectl --token={v} get pods",
        _jwt("k8s", {"iss": "kubernetes/serviceaccount", "sub": "system:serviceaccount:ci:deployer"}),
    ),
    ("ci/kubeconfig_client_key", "users:\n- name: admin\n  user:\n    client-key-data: {v}", _DRAW.b64("kcfg", 120)),
    ("ci/argocd", "argocd login argo.test --username admin --password {v}", "Argo-Init-" + _v("argo", 8, _LOWER)),
]

BLIND14_SECRETS: list[Secret] = [Secret(name, text.replace("{v}", needle), needle) for name, text, needle in _FORMS]

_HAND_ORDINARY = [
    "The OAuth authorization code is single-use and expires after about ten minutes.",
    "Set client_secret from the environment: os.environ['OAUTH_CLIENT_SECRET'].",
    "redirect_uri=https://app.example.test/callback must match exactly, trailing slash included.",
    "error=invalid_grant&error_description=Code+not+valid",
    "The refresh token rotates on every use; store the new one the response returns.",
    "Use PKCE with code_challenge_method=S256 for public clients.",
    "openid profile email offline_access",
    "GET /.well-known/openid-configuration returned 200 in 41 ms",
    "jwks_uri: https://login.example-idp.test/.well-known/jwks.json",
    '{"alg":"RS256","kid":"2024-06-rotation","use":"sig"}',
    "The id_token has expired (exp=1717430400, now=1717434000).",
    "token_endpoint_auth_method: client_secret_post",
    "AADSTS700016: Application with identifier 'portal' was not found in the directory.",
    "NameID format urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    '<md:EntityDescriptor entityID="https://sp.example.test/metadata">',
    "AssertionConsumerService Binding=urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
    "The SAML response signature could not be verified against the IdP certificate.",
    "Put the IdP metadata URL in settings and leave the SP key path to the secrets mount.",
    "ldap_search: Invalid credentials (49)",
    "bind_dn = cn=readonly,dc=corp,dc=test",
    "Kerberos: Pre-authentication failed (KDC_ERR_PREAUTH_FAILED)",
    "SSO is enforced for the organisation; password login is disabled.",
    "The API gateway returned 403 Forbidden: missing x-api-key header.",
    "Usage plan: 1000 requests per second, burst 2000.",
    'curl -H "x-api-key: $API_KEY" https://api.example.test/v1/items',
    "apikey=YOUR_API_KEY_HERE",
    "Ocp-Apim-Subscription-Key: <your-subscription-key>",
    "ssl_certificate /etc/nginx/certs/fullchain.pem;",
    "ssl_certificate_key /etc/nginx/certs/privkey.pem;",
    "SSL routines:tls_process_server_certificate:certificate verify failed",
    "openssl req -new -newkey rsa:4096 -nodes -keyout client.key -out client.csr",
    "openssl x509 -in cert.pem -noout -fingerprint -sha256",
    "subject=CN = api.example.test, O = Example Ltd",
    "Not After : Jun 30 23:59:59 2027 GMT",
    "-----BEGIN CERTIFICATE----- is a public certificate, not a key; it is safe to commit.",
    "keytool -list -v -keystore truststore.jks",
    "The keystore password prompt is interactive; do not pass it on the command line.",
    'ssh-keygen -t ed25519 -C "dev@corp.test"',
    "The key fingerprint is SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s dev@laptop",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@laptop",
    "Permission denied (publickey).",
    "Could not open a connection to your authentication agent.",
    "Host key verification failed.",
    "Add the public key to ~/.ssh/authorized_keys on the server.",
    'eval "$(ssh-agent -s)" && ssh-add ~/.ssh/id_ed25519',
    "IdentityFile ~/.ssh/id_ed25519\nIdentitiesOnly yes",
    "gpg --list-secret-keys --keyid-format=long",
    "sec   ed25519/3AA5C34371567BD2 2024-03-10 [SC]",
    "gpg: signing failed: Inappropriate ioctl for device",
    "export GPG_TTY=$(tty)",
    "Primary key fingerprint: 4AEE 18F8 3AFD EB23 B2E1  5F62 0C1F 1A2B 3C4D 5E6F",
    "git config --global commit.gpgsign true",
    "signing.keyId=24875D73",
    "storeFile=upload-keystore.jks\nkeyAlias=upload",
    "Upload key certificate SHA-1: 5E:8F:16:06:2E:A3:CD:2C:4A:0D:54:78:76:BA:A6:F3:8C:AB:F6:25",
    "cosign verify --key cosign.pub ghcr.io/acme/api:1.4",
    "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access",
    "twine upload dist/* uses the token from ~/.pypirc",
    "signtool verify /pa /v app.exe",
    "softhsm2-util --show-slots",
    "The token PIN and the SO PIN are different; the SO PIN only re-initialises.",
    "CKR_PIN_INCORRECT",
    "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "aws kms encrypt --key-id alias/app --plaintext fileb://data.json --output text --query CiphertextBlob",
    "KMS key rotation is enabled; the key material changes yearly.",
    "AccessDeniedException: User is not authorized to perform: kms:Decrypt",
    "aws_access_key_id = ${AWS_ACCESS_KEY_ID}",
    "Bitwarden CLI: bw unlock --raw prints a session key; export it as BW_SESSION.",
    "op read op://Private/Prod DB/password",
    "keepassxc-cli open vault.kdbx",
    "The master password is never sent to the server.",
    "Your vault is locked. Unlock it with your master password.",
    "vault kv get -field=password secret/app/db",
    "vault operator init -key-shares=5 -key-threshold=3",
    "Seal Type shamir, Sealed false, Total Shares 5, Threshold 3",
    'path "secret/data/app/*" { capabilities = ["read"] }',
    "Error making API request. Code: 403. Errors: * permission denied",
    "secretKeyRef:\n  name: db-credentials\n  key: password",
    "valueFrom: secretKeyRef: name=stripe key=api_key",
    "DOPPLER_TOKEN is injected by the CI runner; never echo it.",
    "Wallet address: 0x71C7656EC7ab88b098defB751B7401B5f6d8976F",
    "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "Transaction hash 0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060",
    "m/44'/60'/0'/0/0",
    "Never share your recovery phrase; support will never ask for it.",
    "BIP-39 word lists have 2048 words; a phrase is 12 or 24 of them.",
    "ccxt.binance({'apiKey': process.env.BINANCE_KEY, 'secret': process.env.BINANCE_SECRET})",
    "Binance error -2015: Invalid API-key, IP, or permissions for action.",
    "Your licence expires on 2027-01-31; renew from the account page.",
    "License key format: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX",
    "slmgr /dlv",
    "This copy of Sublime Text is unregistered.",
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "SESSION_COOKIE_SECURE = True",
    "SESSION_COOKIE_NAME = 'sessionid'",
    "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
    "app.secret_key = os.environ.get('FLASK_SECRET_KEY')",
    "CSRF verification failed. Request aborted.",
    "Forbidden (CSRF token missing.): /api/login/",
    '<input type="hidden" name="csrfmiddlewaretoken" value="{{ csrf_token }}">',
    "{% csrf_token %}",
    "The magic link expires after 15 minutes and can be used once.",
    "Check your inbox for a sign-in link.",
    "https://app.example.test/auth/magic?token=<token>&email=<email>",
    "Your code expires in 10 minutes.",
    "Enter the 6-digit code from your authenticator app.",
    "Too many attempts. Try again in 30 seconds.",
    "TOTP uses a 30-second step and HMAC-SHA1 by default (RFC 6238).",
    "otpauth://totp/ACME:dev@corp.test?secret=<base32-secret>&issuer=ACME is the URI format from the docs.",
    "Fernet tokens start with gAAAAA because of the version byte and timestamp.",
    "ciphertext = Fernet(key).encrypt(b'hello')  # key = Fernet.generate_key()",
    "AES-256-GCM needs a 12-byte nonce; never reuse it with the same key.",
    "openssl enc -aes-256-cbc -pbkdf2 -in data.tar -out data.enc",
    "$ANSIBLE_VAULT;1.1;AES256",
    "ansible-vault edit group_vars/prod.yml --ask-vault-pass",
    "RAILS_MASTER_KEY is read from the environment in production.",
    "APP_KEY=base64:  # run php artisan key:generate",
    "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    "Stripe-Signature: t=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    "X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    "Webhook signature verification failed: no signatures found matching the expected signature.",
    "git clone https://github.com/acme/public-repo.git",
    "remote: Support for password authentication was removed on August 13, 2021.",
    "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "docker login ghcr.io -u USERNAME --password-stdin",
    "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app",
    "postgres://user:password@localhost:5432/mydb is the placeholder from the README.",
    'FATAL: password authentication failed for user "app"',
    "redis://localhost:6379/0",
    "integrity sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+ZsV2i1sT1xQ2+x0F2gk+sHZNq3TFkuw5Ah5cA==",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "request id 7c9e6679-7425-40de-944b-e07fc1f90ae7",
    "Python 3.12.4, cryptography 43.0.1, PyJWT 2.9.0",
    "/home/dev/.ssh/known_hosts:14",
    "/etc/ssl/private is mode 0700 and owned by root.",
    "Rotate keys every 90 days and revoke the old ones after the grace period.",
    "Leaked a token? Revoke it first, then rotate, then audit the logs.",
    "The word 'password' appears 14 times in the migration guide.",
    "Rename the column password_reset_sent_at to reset_requested_at.",
    "Mot de passe oublié ? Cliquez sur le lien pour le réinitialiser.",
    "Passwort vergessen? Wir senden Ihnen einen Link.",
    "¿Olvidaste tu contraseña? Te enviaremos un enlace.",
    "Esqueceu sua senha? Enviaremos um link por e-mail.",
    "Забыли пароль? Мы отправим ссылку для сброса.",
    "忘记密码？我们会发送重置链接。",
    "パスワードをお忘れですか？リセット用のリンクを送信します。",
    "पासवर्ड भूल गए? हम रीसेट लिंक भेजेंगे।",
    "Şifrenizi mi unuttunuz? Sıfırlama bağlantısı göndereceğiz.",
    "Nie pamiętasz hasła? Wyślemy link do resetu.",
    "Der Token ist abgelaufen, bitte melden Sie sich erneut an.",
    "El token de acceso caducó; pide uno nuevo con el refresh token.",
    "Le jeton CSRF est manquant ou invalide.",
    "Токен доступа истёк, обновите его через refresh_token.",
    "访问令牌已过期，请使用刷新令牌获取新的令牌。",
    "アクセストークンの有効期限が切れました。",
    "Erişim belirtecinin süresi doldu.",
    "Klucz API jest nieprawidłowy, sprawdź nagłówek x-api-key.",
    "client_id=portal-web&response_type=code&scope=openid%20profile",
    "state=af0ifjsldkj&nonce=n-0S6_WzA2Mj",
    "The session expired after 30 minutes of inactivity.",
    "JWT_SECRET must be at least 32 characters long.",
    "Generate one with: python -c 'import secrets; print(secrets.token_urlsafe(32))'",
    "openssl rand -base64 32",
    "Bearer <token>",
    "Authorization: Bearer ${ACCESS_TOKEN}",
    "token_type: Bearer, expires_in: 3600, scope: read",
    "The public key for verifying release signatures is published at https://example.test/keys.asc.",
    "-----BEGIN PUBLIC KEY----- blocks are fine to share; private ones are not.",
    "SHA256 (release-1.4.2.tar.gz) = 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    "pip install --require-hashes -r requirements.txt",
    "YubiKey 5 NFC, firmware 5.4.3, serial 18273645",
    "The HSM partition label is prod-ca-01.",
    "Use WebAuthn or a hardware key instead of SMS codes where you can.",
    "CVE-2024-3094 affected xz 5.6.0 and 5.6.1.",
    "base64 of 'hello world' is aGVsbG8gd29ybGQ=",
    'eyJhbGciOiJub25lIn0 decodes to {"alg":"none"}, which you must reject.',
    "password: ********",
    "api_key: <redacted>",
    "token: xxxxxxxxxxxxxxxxxxxx",
    "secret: REPLACE_ME",
    "The word key here means a dictionary key: d['key'] = value.",
    "Keyboard layout: de-nodeadkeys",
    "The primary key of the users table is id (bigint).",
    "The session ID in the log is an opaque counter, 000184, not the cookie.",
    "Passwords must be 12+ characters with no maximum length.",
    "We hash passwords with argon2id on the server; the client never stores them.",
]

BLIND14_ORDINARY: list[str] = list(dict.fromkeys(_HAND_ORDINARY))
_FILL = 0
while len(BLIND14_ORDINARY) < 200:
    BLIND14_ORDINARY.append(
        f"build {_FILL + 1}: artifact sha256 {_s('ord' + str(_FILL), 64, _HEX)} uploaded, no credentials in the log"
    )
    _FILL += 1
del BLIND14_ORDINARY[200:]
