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
]


@pytest.mark.parametrize("text", REVEALED_KEPT)
def test_output_that_is_no_secret_stays(text: str) -> None:
    assert redact(text) == text


_BLIND7_FAMILIES = (
    "vaultcli/op_item_get",
    "vaultcli/bw_get_password",
    "vaultcli/pass_show",
    "vaultcli/lpass_show",
    "macos/find_generic_password_out",
    "kube/decoded_secret_output",
)


@pytest.mark.parametrize("name", _BLIND7_FAMILIES)
def test_the_blind7_forms_of_these_families_are_caught(name: str) -> None:
    form = next(secret for secret in BLIND7_SECRETS if secret.name == name)
    assert form.needle not in redact(form.text)
