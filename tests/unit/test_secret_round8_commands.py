"""Issue 36, round 8: the command families the seventh blind corpus caught out, each tried on forms of its own
(other tools, shells and shapes than the corpus's) and on ordinary texts near them that must stay. The values are
made up."""

from __future__ import annotations

import pytest

from kernel.privacy import redact
from tests.support.redaction_checks import assert_redacted_in_place
from tests.support.secrets_blind7 import BLIND7_SECRETS

# a command that reveals a secret, then its output: one token alone on the next line
REVEALED_FOUND = [
    ("$ rbw get gitlab.example.com\nHeron_Slate_52", "Heron_Slate_52"),
    ("~ ❯ gopass show -o infra/db/replica\nq7#Tz!mK2vLp", "q7#Tz!mK2vLp"),
    ("$ passage show mail/work\nCobalt+Lantern+8", "Cobalt+Lantern+8"),
    ("$ keepassxc-cli show -s -a password team.kdbx jenkins\nWalrus@Tide64", "Walrus@Tide64"),
    ("jlee@mbp ~ % security find-internet-password -s git.example.com -w\nPelican*Hollow3", "Pelican*Hollow3"),
    ("$ secret-tool lookup service imap user jlee\nBrambleFox!19", "BrambleFox!19"),
    ("$ keyring get smtp.example.org noreply\nGranite~Owl~73", "Granite~Owl~73"),
    ("$ vault kv get -field=password kv/apps/billing\nMarble-Finch-08", "Marble-Finch-08"),
    ("$ bao read -field=secret_key kv/s3\nwJalr9+Xq/Fe2Lm", "wJalr9+Xq/Fe2Lm"),
    (
        "$ aws ssm get-parameter --name /prod/db/pass --with-decryption --query Parameter.Value --output text\n"
        "Sorrel^Dune^44",
        "Sorrel^Dune^44",
    ),
    ("$ gcloud secrets versions access latest --secret=smtp-pass\nLinden#Cove#5", "Linden#Cove#5"),
    ("> az keyvault secret show --vault-name kv1 -n SqlAdmin --query value -o tsv\nAzure$Kite77", "Azure$Kite77"),
    ("$ doppler secrets get STRIPE_WEBHOOK --plain\nwhsec-Hazel9!Drift", "whsec-Hazel9!Drift"),
    ("PS C:\\> $cred.GetNetworkCredential().Password\nKestrel_Bay_31", "Kestrel_Bay_31"),
    ("$ kubectl get secret db -o go-template='{{.data.password | base64decode}}'\nTern%Quarry%6", "Tern%Quarry%6"),
    ("$ oc get secrets app -o jsonpath='{.data.token}' | base64 --decode\nZephyr.Mint.905", "Zephyr.Mint.905"),
    ('$ echo "$REGISTRY_PASSWORD"\nOak&Ferry&21', "Oak&Ferry&21"),
    ("$ printenv SMTP_PASSWORD\nVelvet-Radar-56", "Velvet-Radar-56"),
    ("PS> Write-Output $env:SERVICE_TOKEN\nPlover7Quill", "Plover7Quill"),
    ("$ heroku config:get SESSION_SECRET -a shop\nMosaic!Fern!12", "Mosaic!Fern!12"),
    ("$ jq -r .db.password config.json\nCedar#Glen#88", "Cedar#Glen#88"),
    # a secret file shown, a password generated: a password's shape, not only a long token's
    ("$ cat /run/secrets/db_password\nPotter&Wren5", "Potter&Wren5"),
    ("$ pwgen -s 12 1\nohth5Aiv7eeX", "ohth5Aiv7eeX"),
    # a store's output named for a secret, a file decrypted, a prompt's answer
    ("$ tofu output -raw admin_password\nGarnet&Moor4", "Garnet&Moor4"),
    ("$ pulumi stack output dbPass --show-secrets\nPebble*Ford9", "Pebble*Ford9"),
    ("$ consul kv get services/billing/api_token\nAstra-Vole-63", "Astra-Vole-63"),
    ("$ gpg --quiet --decrypt ~/.mail/imap.gpg\nSable&Quill4", "Sable&Quill4"),
    ("$ dcli password intranet\nMuskrat!Hill5", "Muskrat!Hill5"),
    ("$ pass show lab/switch\nOtter=Bluff5", "Otter=Bluff5"),
    ("$ openssl rand -base64 6\nc2VjcmV0=", "c2VjcmV0="),
    ("$ kubectl get secret grafana -o jsonpath='{.data.admin-password}'\nT2NlbG90XlZhcG9yXjUw", "T2NlbG90XlZhcG9yXjUw"),
    ("$ netlify env:get STRIPE_WEBHOOK_SECRET\nwhsec-Fennel!Crag8", "whsec-Fennel!Crag8"),
]


@pytest.mark.parametrize(("text", "secret"), REVEALED_FOUND)
def test_a_secret_a_command_prints_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


REVEALED_KEPT = [
    # a field that is no secret, and output that is no password
    "$ op item get 'Prod DB' --fields username\nsvc_billing2",
    "$ bw get username github.com\njlee42",
    "$ vault kv get -field=url kv/apps/billing\nhttps://billing.internal:8443",
    "$ vault kv get -field=host kv/db\ndb01.internal.example.com",
    "$ bw get totp github.com\n482913",
    '$ bw get item github.com\n{"object":"item","id":"b1"}',
    "$ pass show infra/vpn\nError: infra/vpn is not in the password store.",
    "$ security find-generic-password -s wifi -w\nsecurity: SecKeychainSearchCopyNext: The item could not be found.",
    "$ pass show infra/vpn\nPassword:",
    "$ keyring get smtp.example.org noreply\njlee@example.org",
    "$ echo $PASSWORD_FILE\n/run/secrets/db_password",
    "$ echo $TOKEN_TTL\n3600",
    "$ echo $DB_PASSWORD\n",
    # the next line is another command, a word or code
    "pass show infra/vpn\npass insert infra/new",
    "$ gopass ls\nwebsites/\ninfra/",
    "$ op item get 'Prod DB' --reveal\nexit",
    "echo $API_TOKEN\ncount+=1;",
    "$ kubectl get secret db -o jsonpath='{.data.ca}' | base64 -d\n./deploy.sh",
    "$ kubectl get secret db -o jsonpath='{.data.username}' | base64 -d\nbilling_ro2",
    # ordinary commands and prose about them
    "Use `pass show NAME` to print a password, or `pass -c NAME` to copy it.",
    "$ echo $HOME\n/home/jlee",
    "$ printenv PATH\n/usr/local/bin:/usr/bin",
    "$ base64 -d notes.b64\nHello-World-2024",
    "$ cat credentials\n[default]",
    "$ cat secrets.env\nDB_HOST=db01.internal",
    "$ cat secret.conf\ndb.host=db01",
    'echo "Generating token"\nStep-1/3',
    "$ kubectl get secret grafana -o jsonpath='{.data.admin-user}'\nYWRtaW4=",
    "$ kubectl get secret grafana -o jsonpath='{.metadata.name}'\ngrafana",
    "$ vault kv get -field=db_username kv/billing\nsvc_app2",
    "$ terraform output -raw instance_ip\n10.0.0.5",
    "$ echo $BYPASS_CACHE\nabc123x",
    "$ gpg -d notes.gpg\nMeeting notes for Monday",
    "$ tar -xzf dist.tgz -d out\nabc123x",
]


@pytest.mark.parametrize("text", REVEALED_KEPT)
def test_output_that_is_no_secret_stays(text: str) -> None:
    assert redact(text) == text


# Windows: a password handed to net use, to a remote tool's /p, to ConvertTo-SecureString; an answer file's value
WINDOWS_FOUND = [
    ("net use \\\\nas02\\backup /user:WORKGROUP\\svc_bak Juniper&Kiln9", "Juniper&Kiln9"),
    ("net use L: \\\\files\\legal /savecred /user:amy Sparrow%Gate12", "Sparrow%Gate12"),
    ("schtasks /change /tn Backup /ru CORP\\svc_bak /rp Walnut=Shore4", "Walnut=Shore4"),
    ("tasklist /s app03 /u CORP\\ops /p Quokka!Reef2", "Quokka!Reef2"),
    ("netdom join WS17 /domain:corp.example /UserD:corp\\joiner /PasswordD:Bison^Creek5", "Bison^Creek5"),
    ("$sec = ConvertTo-SecureString -AsPlainText -Force 'Heather.Moss.31'", "Heather.Moss.31"),
    ('New-LocalUser kiosk -Password (ConvertTo-SecureString -AsPlainText "Lark#Field#3" -Force)', "Lark#Field#3"),
    (
        "<LocalAccount>\n  <Password>\n    <Value>Thistle*Brook7</Value>\n    <PlainText>true</PlainText>\n"
        "  </Password>\n</LocalAccount>",
        "Thistle*Brook7",
    ),
    ("<settings><server><password>Falcon+Ridge+40</password></server></settings>", "Falcon+Ridge+40"),
    (
        'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword /t REG_SZ '
        "/d Spruce!Vale3 /f",
        "Spruce!Vale3",
    ),
    ("Set-ItemProperty -Path $winlogon -Name DefaultPassword -Value 'Mallow_Crest_7'", "Mallow_Crest_7"),
    ("Set-ADAccountPassword kiosk -Reset -NewPassword 'Ferret#Glade2'", "Ferret#Glade2"),
    ("net user /add kiosk Otter=Bluff5", "Otter=Bluff5"),
    (
        "$c = [pscredential]::new('svc', ('Dahlia_Cove_6' | ConvertTo-SecureString -AsPlainText -Force))",
        "Dahlia_Cove_6",
    ),
    ("vmrun -T ws -gu Administrator -gp Basil^Fort2 listProcessesInGuest vm.vmx", "Basil^Fort2"),
    ("bitsadmin /setcredentials nightly SERVER NTLM CORP\\svc_bits Wicker=Lane6", "Wicker=Lane6"),
]


@pytest.mark.parametrize(("text", "secret"), WINDOWS_FOUND)
def test_a_windows_password_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


WINDOWS_KEPT = [
    "net use Z: \\\\fs01\\share /persistent:yes",
    "net use Z: /delete",
    "net use \\\\srv\\share * /user:jlee",
    "schtasks /create /tn Nightly /tr C:\\run.bat /ru SYSTEM /rp *",
    "schtasks /query /fo LIST /v",
    "taskkill /pid 4242 /f",
    "reg add HKLM\\SOFTWARE\\Acme /v PasswordLength /t REG_DWORD /d 12 /f",
    "Set-ItemProperty -Path $winlogon -Name AutoAdminLogon -Value 1",
    "net user /domain kiosk",
    "$enc | ConvertTo-SecureString -Key $key",
    'Read-Host "Enter password " -AsSecureString',
    "$s = ConvertTo-SecureString -AsPlainText $plain -Force",
    "$s = ConvertTo-SecureString -AsPlainText -Force -String $env:ADMIN_PW",
    "<PasswordExpires>false</PasswordExpires>",
    "<MinimumPasswordLength>14</MinimumPasswordLength>",
    "<password>${env.NEXUS_PASSWORD}</password>",
    "<password>{COQLCE6DU6GtcS5P=}</password>",
    '<label for="password">Password</label><input type="password" name="password">',
]


@pytest.mark.parametrize("text", WINDOWS_KEPT)
def test_windows_commands_and_settings_without_a_password_stay(text: str) -> None:
    assert redact(text) == text


# macOS: a keychain's password on the command line, a Wi-Fi key, a user's password set
MACOS_FOUND = [
    ("security add-generic-password -U -a ci -s signing -w Magnolia!Dock6", "Magnolia!Dock6"),
    ("security unlock-keychain -p 'Tundra#Lamp#2' build.keychain", "Tundra#Lamp#2"),
    ("security set-keychain-password -o Old#Pine1 -p New#Pine2 login.keychain", "Old#Pine1"),
    ("security import dist.p12 -k build.keychain -P Cinder^Moth8 -T /usr/bin/codesign", "Cinder^Moth8"),
    ("networksetup -setairportnetwork en0 GuestNet Harbor-Kite-90", "Harbor-Kite-90"),
    ("sudo dscl . -passwd /Users/kiosk Meadow&Lark4", "Meadow&Lark4"),
]


@pytest.mark.parametrize(("text", "secret"), MACOS_FOUND)
def test_a_macos_password_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


MACOS_KEPT = [
    "security add-generic-password -a jlee -s svc -w",
    "security add-generic-password -a jlee -s svc -w -U",
    'security unlock-keychain -p "$KEYCHAIN_PASSWORD" build.keychain',
    "security find-generic-password -s wifi -w",
    "networksetup -setairportnetwork en0 OfficeWifi",
    "security create-keychain -P build.keychain",
]


@pytest.mark.parametrize("text", MACOS_KEPT)
def test_macos_commands_without_a_password_stay(text: str) -> None:
    assert redact(text) == text


# a directory bind: the password given with a DN or a directory's user
BIND_FOUND = [
    ('err = l.Bind("cn=readonly,dc=corp,dc=example", "Osprey+Delta4")', "Osprey+Delta4"),
    ("client.bind('cn=root', 'Vireo#Pass77', (err) => done(err))", "Vireo#Pass77"),
    ("conn = Connection(srv, 'uid=app,ou=svc,dc=ex,dc=org', 'Alder^Row^3', auto_bind=True)", "Alder^Row^3"),
    ("l.simple_bind_s(bind_dn, 'Coral!Spire58')", "Coral!Spire58"),
    ('using var de = new DirectoryEntry("LDAP://dc2", "CORP\\\\svc_sync", "Mink&Valley3");', "Mink&Valley3"),
    ('pc.ValidateCredentials("kiosk", "Hazel~Tarn~9")', "Hazel~Tarn~9"),
    ('env.put(Context.SECURITY_CREDENTIALS, "Iris_Ledge_12");', "Iris_Ledge_12"),
    ("rootpw Crane@Marsh61\nsuffix dc=example,dc=org", "Crane@Marsh61"),
    ("ldappasswd -x -D cn=admin,dc=ex -W -s Nettle+Bay+8 uid=bob,ou=people,dc=ex", "Nettle+Bay+8"),
    ("slappasswd -h {SSHA} -s Gull-Point-47", "Gull-Point-47"),
]


@pytest.mark.parametrize(("text", "secret"), BIND_FOUND)
def test_a_bind_password_is_redacted(text: str, secret: str) -> None:
    assert_redacted_in_place(text, secret)


BIND_KEPT = [
    "this.onClick = this.onClick.bind(this, 'row', 'col');",
    "handler.bind(null, 'click', 'submit')",
    "sock.bind(('0.0.0.0', 8080))",
    "conn.simple_bind_s(dn, password)",
    "conn.simple_bind_s(bind_dn, os.environ['LDAP_PW'])",
    "conn.simple_bind_s('cn=admin,dc=x', '')",
    "env.put(Context.SECURITY_CREDENTIALS, password);",
    "bindpw is set in /etc/nslcd.conf, readable by root only",
    "ctx.ValidateCredentials(user, pw)",
    "ldappasswd -x -D cn=admin,dc=ex -W -S uid=bob,ou=people,dc=ex",
    "slappasswd -h {SSHA}",
]


@pytest.mark.parametrize("text", BIND_KEPT)
def test_binds_without_a_literal_password_stay(text: str) -> None:
    assert redact(text) == text


_BLIND7_FAMILIES = (
    "vaultcli/op_item_get",
    "vaultcli/bw_get_password",
    "vaultcli/pass_show",
    "vaultcli/lpass_show",
    "macos/find_generic_password_out",
    "kube/decoded_secret_output",
    "windows/net_use",
    "windows/unattend_xml",
    "windows/schtasks_rp",
    "windows/set_adaccountpassword",
    "macos/add_internet_password",
    "ldap/python_simple_bind",
    "ldap/nslcd_bindpw",
)


@pytest.mark.parametrize("name", _BLIND7_FAMILIES)
def test_the_blind7_forms_of_these_families_are_caught(name: str) -> None:
    form = next(secret for secret in BLIND7_SECRETS if secret.name == name)
    assert form.needle not in redact(form.text)
