"""Tenth held-out secrets corpus (issue 36): operations and enterprise IT.

Written blind: its author read none of the redaction rules, none of the earlier corpora and none of the
tests about secrets; only the ``Secret`` structure and ``SeededDraw`` of ``secrets_corpus``, the head of
``secrets_blind7`` (for its format) and ``secret_corpus_measure``. Values are drawn from
``SeededDraw("blind10")`` or written by hand; none is live. Vendor-looking keys are assembled from pieces.
"""

from __future__ import annotations

import base64
import hashlib

from tests.support.secrets_corpus import ALNUM, Secret, SeededDraw

_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_HEX = "0123456789abcdef"
_DIGITS = "0123456789"
_B64URL = ALNUM + "-_"

_DRAW = SeededDraw("blind10")
_s = _DRAW.chars


def family_of(name: str) -> str:
    """The category of a form: the part of its name before the slash."""
    return name.split("/", 1)[0]


BLIND10_SECRETS: list[Secret] = []


def _f(name: str, text: str, needle: str) -> None:
    """One form: ``@@`` in ``text`` stands for the needle."""
    BLIND10_SECRETS.append(Secret(name, text.replace("@@", needle), needle))


# --- servers and their config files
_f(
    "server_config/nginx_basic_auth_proxy",
    'proxy_set_header Authorization "Basic @@";',
    base64.b64encode(b"deploy:" + _s("ng1", 14).encode()).decode(),
)
_f("server_config/haproxy_stats", "listen stats\n  bind :8404\n  stats enable\n  stats auth admin:@@", _s("hap", 12))
_f(
    "server_config/apache_ldap_bind",
    'AuthLDAPBindDN "cn=svc-web,ou=svc,dc=corp,dc=local"\nAuthLDAPBindPassword @@',
    _s("apl", 16),
)
_f(
    "server_config/tomcat_users",
    '<user username="manager" password="@@" roles="manager-gui"/>',
    "Tomc@t" + _s("tom", 6),
)
_f("server_config/env_file", "# /etc/default/app\nAPP_ENV=prod\nDB_PASS=@@\nLOG_LEVEL=info", _s("envf", 20))
_f("server_config/systemd_environment", '[Service]\nEnvironment="REDIS_URL=redis://:@@@cache01:6379/0"', _s("sysd", 18))
_f("server_config/php_fpm_env", "env[MAIL_PASSWORD] = @@", _s("php", 14))
_f("server_config/wp_config", "define( 'DB_PASSWORD', '@@' );", _s("wpc", 22) + "!")
_f("server_config/grub_superuser", 'set superusers="root"\npassword root @@', "boot-" + _s("grub", 8))
_f("server_config/squid_cache_peer", "cache_peer parent.corp 3128 0 no-query login=proxyuser:@@", _s("sqd", 10))
_f(
    "server_config/samba_smbpasswd_cmd",
    "printf '@@\\n%s\\n' \"$PW2\" | smbpasswd -a -s scanner",
    "Sc4nner" + _s("smb", 5),
)
_f(
    "server_config/sssd_bind",
    "[domain/corp]\nldap_default_bind_dn = cn=sssd,dc=corp\nldap_default_authtok = @@",
    _s("sssd", 15),
)
_f("server_config/rsyncd_secrets", "$ cat /etc/rsyncd.secrets\nbackup:@@", _s("rsy", 12))
_f(
    "server_config/fetchmailrc",
    "poll imap.corp.example proto IMAP user 'helpdesk' there with password '@@' is helpdesk here",
    _s("fmr", 13),
)
_f("server_config/netrc", "machine artifacts.corp.example login ci password @@", _s("netrc", 24))
_f("server_config/pgpass", "$ cat ~/.pgpass\ndb-prod-01:5432:*:postgres:@@", _s("pgp", 18))
_f("server_config/my_cnf", '[client]\nuser=root\npassword="@@"', _s("mycnf", 16))
_f("server_config/hard_lowentropy_htpasswd_cmd", "htpasswd -b /etc/nginx/.htpasswd grafana @@", "summer2024")
_f(
    "server_config/hard_nginx_upstream_comment",
    "# upstream creds (ask Jon before rotating): svc_web / @@\nupstream api { server 10.0.4.12:8080; }",
    "Wq7" + _s("ngc", 9),
)

# --- ssh and keys
_f("ssh/sshpass", "sshpass -p '@@' ssh ops@10.20.0.15 'sudo systemctl restart nginx'", _s("sshp", 12))
_f(
    "ssh/private_key_body",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n@@\n-----END OPENSSH PRIVATE KEY-----",
    _s("opk", 70, ALNUM + "+/"),
)
_f(
    "ssh/rsa_key_line",
    "-----BEGIN RSA PRIVATE KEY-----\n@@\n...\n-----END RSA PRIVATE KEY-----",
    "MIIEow" + _s("rsa", 58, ALNUM + "+/"),
)
_f(
    "ssh/key_passphrase_prose",
    "ssh-keygen asked for the passphrase on id_ed25519 for the jump host, it's @@",
    "correct-horse-" + _s("kp", 5, _LOWER),
)
_f("ssh/hard_expect_script", 'spawn ssh admin@fw01\nexpect "assword:"\nsend "@@\\r"', _s("exp", 11))
_f("ssh/putty_plink", "plink.exe -ssh -pw @@ root@192.168.10.5 -batch uptime", _s("plink", 10))
_f("ssh/pscp", "pscp -pw @@ backup.tgz sysop@nas01:/volume1/backups/", _s("pscp", 9))

# --- BMC, IPMI, hardware
_f("bmc/ipmitool", "ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -P @@ chassis power cycle", _s("ipmi", 10, _UPPER))
_f("bmc/idrac_racadm", "racadm -r 10.0.9.30 -u root -p @@ serveraction powerstatus", _s("drac", 12))
_f(
    "bmc/ilo_default_tag",
    "iLO default on the pull tab of DL380 #7: user Administrator, password @@",
    _s("ilo", 8, _UPPER),
)
_f("bmc/redfish_curl", "curl -k -u root:@@ https://10.0.9.44/redfish/v1/Systems/1", _s("rfish", 14))
_f(
    "bmc/hard_supermicro_label",
    "the sticker on the board says BMC PWD @@ (unique per board since 2020)",
    _s("smc", 10, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
)
_f(
    "bmc/hard_kvm",
    "Raritan KVM: log in as admin, the one we set after the reset is @@",
    "raritan" + _s("kvm", 4, _DIGITS),
)
_f("printer/ews_admin", "HP LaserJet M607 EWS -> Security -> General: device password set to @@", _s("prn", 8))
_f("printer/scan_to_smb", "Scan to folder: \\\\fs01\\scans  user CORP\\svc_scan  pass @@", _s("scn", 12))
_f("printer/hard_canon_pin", "Canon iR-ADV system manager ID 7654321, PIN @@", _s("cpin", 7, _DIGITS))
_f("nas/synology_cli", "synouser --setpw admin @@", _s("syno", 14))
_f("nas/qnap_prose", "QNAP TS-453 web UI admin pw is @@ don't tell the interns", _s("qnap", 9))
_f("nas/truenas_api_key", 'curl -H "Authorization: Bearer @@" https://truenas.lan/api/v2.0/pool', "1-" + _s("tnas", 64))
_f("nas/cifs_mount", "mount -t cifs //nas01/media /mnt/media -o username=plex,password=@@,vers=3.0", _s("cifs", 13))
_f("nas/fstab_credentials", "$ sudo cat /etc/samba/.smbcred\nusername=backup\npassword=@@\ndomain=CORP", _s("smbc", 15))
_f(
    "camera/rtsp_url",
    "ffmpeg -i rtsp://admin:@@@192.168.1.64:554/Streaming/Channels/101 -c copy out.mp4",
    _s("rtsp", 10),
)
_f(
    "camera/hikvision_prose",
    "NVR in the loading dock: admin / @@ (changed from the default 12345)",
    "Dock" + _s("hik", 6) + "#",
)
_f("camera/hard_onvif", "onvif-cli --host 10.1.1.50 --user operator --pass=@@ getprofiles", _s("onv", 8, _LOWER))
_f(
    "router/cisco_enable_secret_plain",
    "conf t\nenable password 0 @@\nline vty 0 4\n login local",
    "C1sco" + _s("ena", 6),
)
_f("router/cisco_username", "username netadmin privilege 15 secret 0 @@", _s("csu", 14))
_f("router/type7", "username backup password 7 @@", _s("t7", 22, "0123456789ABCDEF"))
_f("router/snmp_community", "snmp-server community @@ RW 10", "c0rpRW" + _s("snmp", 6, _LOWER))
_f("router/snmpv3", "snmpwalk -v3 -l authPriv -u monitor -a SHA -A @@ -x AES -X privpass22 10.0.0.1", _s("snv3", 16))
_f("router/mikrotik", "/user set admin password=@@", _s("mtk", 12))
_f("router/junos_plain", "set system root-authentication plain-text-password-value @@", _s("jun", 13))
_f("router/fortigate_psk", 'config vpn ipsec phase1-interface\n edit "to-branch"\n  set psksecret @@', _s("fgt", 24))
_f("router/unifi_ssh", "UniFi controller > Settings > System > Device SSH Authentication: ubnt / @@", _s("ubnt", 12))
_f("router/hard_tacacs_key", "tacacs-server host 10.0.0.5 key @@", _s("tac", 16, _LOWER))
_f("router/radius_secret", "client 10.0.0.0/24 {\n    secret = @@\n    shortname = switches\n}", _s("rad", 20))
_f(
    "router/hard_console_note",
    "console on SW-CORE-2 still has the old one: @@ (yes, really)",
    "Passw0rd!" + _s("con", 3, _DIGITS),
)

# --- VPN and wifi
_f("vpn/wireguard_privkey", "[Interface]\nPrivateKey = @@\nAddress = 10.66.0.2/32", _DRAW.b64("wg1", 32))
_f(
    "vpn/wireguard_psk",
    "[Peer]\nPublicKey = 3n9cYb2x0uW1tq8fVd5mHkLr7sPzA6eJoQiXgTyNvBc=\nPresharedKey = @@",
    _DRAW.b64("wg2", 32),
)
_f("vpn/openvpn_auth_user_pass", "$ cat /etc/openvpn/client/auth.txt\njdoe\n@@", _s("ovpn", 14))
_f("vpn/ipsec_secrets", '%any 203.0.113.10 : PSK "@@"', _s("ipsec", 28))
_f("vpn/openconnect", "echo '@@' | openconnect --user=jdoe --passwd-on-stdin vpn.corp.example", _s("ocon", 12))
_f(
    "vpn/tls_auth_key",
    "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n@@\n-----END OpenVPN Static key V1-----\n</tls-auth>",
    _s("tlsa", 32, _HEX),
)
_f("vpn/hard_group_password", "Cisco AnyConnect group: CORP-VPN, group password @@", _s("grp", 10))
_f(
    "vpn/hard_spelled",
    "VPN shared key, reading it off the card: alpha, 7, tango, kilo, 9, 9, bravo. Typed: @@",
    "a7tk99b",
)
_f("wifi/wpa_supplicant", 'network={\n    ssid="CORP-IoT"\n    psk="@@"\n}', _s("wpa", 18))
_f("wifi/nmcli", "nmcli dev wifi connect Warehouse-5G password @@", _s("nmc", 12))
_f("wifi/hard_guest_sign", "Guest WiFi this week -> SSID Lobby, key: @@", "bluewater" + _s("gst", 3, _DIGITS))
_f("wifi/netsh", "netsh wlan set hostednetwork mode=allow ssid=FloorAP key=@@", _s("nsh", 11))
_f("wifi/hostapd", "interface=wlan0\nssid=plant-floor\nwpa=2\nwpa_passphrase=@@", _s("hapd", 16))

# --- directory services
_f(
    "directory/ldapsearch",
    "ldapsearch -x -H ldaps://dc01.corp.local -D 'CN=svc-ldap,OU=Service,DC=corp,DC=local' -w '@@' -b 'DC=corp,DC=local'",
    _s("ldsr", 15),
)
_f(
    "directory/ldap_modify_userpassword",
    "dn: uid=jsmith,ou=people,dc=corp,dc=com\nchangetype: modify\nreplace: userPassword\nuserPassword: @@",
    _s("ldm", 12),
)
_f(
    "directory/ad_set_password",
    "Set-ADAccountPassword -Identity jdoe -Reset -NewPassword (ConvertTo-SecureString '@@' -AsPlainText -Force)",
    "Welcome" + _s("adpw", 4, _DIGITS) + "!",
)
_f("directory/net_user", "net user svc_backup @@ /add /domain", _s("netu", 14))
_f(
    "directory/krbtgt_keytab_cmd",
    "ktpass /princ HTTP/web.corp.local@CORP.LOCAL /mapuser svc_web /pass @@ /out web.keytab",
    _s("ktp", 16),
)
_f("directory/kinit_echo", "echo @@ | kinit admin@CORP.LOCAL", _s("kin", 13))
_f("directory/freeipa", "ipa user-add tmp1 --first=T --last=Emp --password <<< '@@'", _s("ipa", 12))
_f("directory/dsrm", "DSRM password for DC02 (store it in the safe, not here): @@", _s("dsrm", 16))
_f(
    "directory/hard_first_login",
    "new starter accounts get Firstname.Month + @@ until first login",
    "Corp#" + _s("fl", 3, _DIGITS),
)
_f(
    "directory/azure_ad_app_secret",
    'az ad app credential reset --id 5f1c... output:\n{"appId": "5f1c2d0e-7a41-4d0b-9e2f-1a9b3c4d5e6f", "password": "@@", "tenant": "0b7d..."}',
    _s("aadp", 3) + "8Q~" + _s("aadq", 34, _B64URL.replace("-", "")),
)
_f("directory/okta_token", "OKTA_API_TOKEN=@@", "00" + _s("okta", 40, _B64URL))
_f(
    "directory/keycloak_admin",
    "docker run -e KEYCLOAK_ADMIN=admin -e KEYCLOAK_ADMIN_PASSWORD=@@ quay.io/keycloak/keycloak start-dev",
    _s("kc", 12),
)
_f("directory/ldap_conf_bindpw", "# /etc/ldap.secret\n@@", _s("lsec", 18))

# --- mail servers
_f(
    "mail/postfix_sasl_passwd",
    "[smtp.sendgrid.net]:587 apikey:@@",
    "SG." + _s("sg1", 22, _B64URL) + "." + _s("sg2", 43, _B64URL),
)
_f(
    "mail/swaks",
    "swaks --to test@corp.example --server mail.corp.example:587 --auth LOGIN --auth-user relay --auth-password '@@' -tls",
    _s("swk", 14),
)
_f("mail/dovecot_passwd_file", "# /etc/dovecot/users\nhelpdesk:{PLAIN}@@::::::", _s("dove", 12))
_f(
    "mail/smtp_auth_b64_dialog",
    "250-AUTH LOGIN PLAIN\nAUTH PLAIN @@\n235 2.7.0 Authentication successful",
    base64.b64encode(b"\0relay@corp.example\0" + _s("smtpb", 12).encode()).decode(),
)
_f(
    "mail/exchange_connector",
    "New-SendConnector -Name O365 ... -AuthenticationCredential (New-Object PSCredential('relay@corp.example',(ConvertTo-SecureString '@@' -AsPlainText -Force)))",
    _s("exc", 15),
)
_f("mail/mailgun_key", "MAILGUN_API_KEY=@@", "key-" + _s("mg", 32, _HEX))
_f(
    "mail/app_password",
    "gmail app password for the alerts mailbox: @@",
    " ".join(_s("gap" + str(i), 4, "abcdefghijklmnopqrstuvwxyz") for i in range(4)).replace(" ", ""),
)
_f(
    "mail/hard_imap_test",
    "openssl s_client -connect imap.corp.example:993 -quiet\na1 LOGIN reports @@\na1 OK Logged in",
    _s("imap", 11),
)
_f("mail/msmtprc", "account default\nhost smtp.office365.com\nuser alerts@corp.example\npassword @@", _s("msmtp", 13))

# --- databases administered by hand
_f("db/mysql_cli", "mysql -h db-prod-02 -u root -p@@ -e 'SHOW PROCESSLIST'", _s("myc", 14))
_f("db/mysql_alter_user", "ALTER USER 'app'@'%' IDENTIFIED BY '@@';", _s("mya", 18))
_f("db/mysql_grant_old", "GRANT ALL ON reports.* TO 'bi'@'10.%' IDENTIFIED BY '@@';", _s("myg", 12))
_f("db/postgres_alter_role", "ALTER ROLE replicator WITH REPLICATION LOGIN PASSWORD '@@';", _s("pgr", 20))
_f("db/psql_url", "psql postgresql://postgres:@@@10.0.3.7:5432/billing", _s("psq", 16))
_f("db/pgpassword_env", "PGPASSWORD=@@ pg_dump -h db1 -U postgres appdb > appdb.sql", _s("pgpw", 16))
_f(
    "db/mssql_sqlcmd",
    "sqlcmd -S sql01\\PROD -U sa -P @@ -Q \"BACKUP DATABASE ERP TO DISK='E:\\bak\\erp.bak'\"",
    _s("sqlc", 14),
)
_f(
    "db/mssql_connstring",
    "Server=tcp:sql01.corp.local,1433;Database=ERP;User Id=erp_app;Password=@@;Encrypt=True;",
    _s("mscs", 18),
)
_f("db/oracle_sqlplus", "sqlplus system/@@@//ora-prod:1521/ORCLPDB1", _s("ora", 12))
_f("db/oracle_alter", 'ALTER USER hr IDENTIFIED BY "@@" ACCOUNT UNLOCK;', _s("orau", 12))
_f("db/mongo_uri", 'mongosh "mongodb://admin:@@@mongo-0.mongo:27017/?authSource=admin&replicaSet=rs0"', _s("mgo", 16))
_f("db/mongo_create_user", 'db.createUser({user: "reporting", pwd: "@@", roles: ["read"]})', _s("mgu", 14))
_f("db/redis_requirepass", "# redis.conf\nrequirepass @@\nmaxmemory 2gb", _s("rdp", 32))
_f("db/redis_cli", "redis-cli -h cache01 -a @@ --no-auth-warning INFO memory", _s("rdc", 20))
_f("db/influx_token", "influx bucket list --host http://influx:8086 --token @@", _s("infl", 86, _B64URL) + "==")
_f("db/clickhouse_users", "<users><default><password>@@</password></default></users>", _s("chs", 16))
_f("db/elastic_reset", "elasticsearch-reset-password -u elastic\nNew value: @@", _s("els", 20, _B64URL))
_f("db/cassandra_cqlsh", "cqlsh 10.0.5.3 -u cassandra -p @@", _s("cql", 12))
_f(
    "db/hard_dbeaver_note",
    "DBeaver connection 'prod-ro' -> user readonly, pw in the description field: @@",
    "ro_" + _s("dbv", 9, _LOWER),
)
_f(
    "db/hard_sql_comment",
    "-- temp login for the auditors, drop after Friday\nCREATE LOGIN auditor WITH PASSWORD = N'@@', CHECK_POLICY = OFF;",
    "Audit" + _s("aud", 5, _DIGITS),
)
_f("db/rabbitmq", "rabbitmqctl change_password admin @@", _s("rmq", 16))
_f("db/jdbc_url_query", "jdbc:postgresql://pg01:5432/erp?user=erp&password=@@&ssl=true", _s("jdbc", 14))

# --- cloud consoles and CLIs
_AKID = "AK" + "IA" + _s("akid", 16, _UPPER)
_f(
    "aws/credentials_file",
    "[prod]\naws_access_key_id = " + _AKID + "\naws_secret_access_key = @@",
    _s("awss", 40, ALNUM + "+/"),
)
_f("aws/access_key_id_export", "export AWS_ACCESS_KEY_ID=@@", "AK" + "IA" + _s("akid2", 16, _UPPER))
_f("aws/session_token", "aws_session_token = @@", "IQoJb3JpZ2luX2Vj" + _s("awst", 200, ALNUM + "+/"))
_f(
    "aws/sts_json",
    '{"Credentials": {"AccessKeyId": "ASIA'
    + _s("asia", 16, _UPPER)
    + '", "SecretAccessKey": "@@", "Expiration": "2026-11-27T23:00:00Z"}}',
    _s("stsj", 40, ALNUM + "+/"),
)
_f(
    "aws/rds_password_cli",
    "aws rds modify-db-instance --db-instance-identifier prod-pg --master-user-password '@@' --apply-immediately",
    _s("rds", 20),
)
_f("aws/ssm_put", "aws ssm put-parameter --name /prod/db/password --type SecureString --value @@", _s("ssm", 22))
_f(
    "aws/hard_split_secret",
    "secret key is long, pasting in two bits so slack doesn't mangle it: first half @@",
    _s("awsh", 20, ALNUM + "+/"),
)
_f(
    "azure/storage_conn",
    "DefaultEndpointsProtocol=https;AccountName=corpbackups;AccountKey=@@;EndpointSuffix=core.windows.net",
    _DRAW.b64("azs", 64),
)
_f(
    "azure/sas_token",
    "azcopy copy ./logs 'https://corplogs.blob.core.windows.net/raw?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-31T00:00:00Z&sig=@@'",
    _DRAW.b64("sas", 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"),
)
_f(
    "azure/sp_login",
    "az login --service-principal -u 2c8a7e1f-0d3b-4f6a-9c2e-7b1d5a4e3f20 -p @@ --tenant corp.onmicrosoft.com",
    _s("azsp", 40, _B64URL.replace("-", "") + "~."),
)
_f(
    "azure/devops_pat",
    "git clone https://build:@@@dev.azure.com/corp/infra/_git/terraform",
    _s("adop", 52, "abcdefghijklmnopqrstuvwxyz234567"),
)
_f(
    "gcp/service_account_json",
    '{"type": "service_account", "project_id": "corp-ops", "private_key_id": "@@", "client_email": "tf@corp-ops.iam.gserviceaccount.com"}',
    _s("gcpk", 40, _HEX),
)
_f(
    "gcp/private_key_json",
    '"private_key": "-----BEGIN PRIVATE KEY-----\\n@@\\n-----END PRIVATE KEY-----\\n"',
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + _s("gcpp", 64, ALNUM + "+/"),
)
_f("gcp/api_key", "gcloud services api-keys ... keyString: @@", "AI" + "za" + _s("gak", 35, _B64URL))
_f(
    "gcp/sql_users_set_password",
    "gcloud sql users set-password postgres --instance=prod-pg --password=@@",
    _s("gsql", 18),
)
_f("do/token", "doctl auth init --access-token @@", "dop" + "_v1_" + _s("dop", 64, _HEX))
_f("hetzner/token", "export HCLOUD_TOKEN=@@", _s("hcl", 64))
_f(
    "cloudflare/api_token",
    "curl -H 'Authorization: Bearer @@' https://api.cloudflare.com/client/v4/user/tokens/verify",
    _s("cft", 40, _B64URL),
)
_f("cloudflare/global_key", "X-Auth-Email: ops@corp.example\nX-Auth-Key: @@", _s("cfg", 37, _HEX))
_f("linode/token", "linode-cli configure --token  # pasted: @@", _s("lin", 64, _HEX))
_f(
    "cloud/hard_console_chat",
    "root login on the Alibaba console for the China tenant, don't ask: corp-cn-root / @@",
    "Cn" + _s("ali", 10) + "@",
)

# --- containers and orchestration
_f("docker/login_p", "docker login registry.corp.example -u ci -p @@", _s("dkl", 20))
_f(
    "docker/config_json_auth",
    '{"auths": {"registry.corp.example": {"auth": "@@"}}}',
    base64.b64encode(b"ci:" + _s("dkc", 20).encode()).decode(),
)
_f(
    "docker/compose_env",
    "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: @@",
    _s("dcp", 18),
)
_f("docker/run_env", "docker run -d -e MYSQL_ROOT_PASSWORD=@@ -p 3306:3306 mysql:8", _s("dre", 14))
_f(
    "docker/inspect_output",
    '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin",\n    "SMTP_PASS=@@",\n    "TZ=UTC"\n]',
    _s("dins", 16),
)
_f("docker/hub_pat", "echo @@ | docker login -u corpbuild --password-stdin", "dckr" + "_pat_" + _s("dpat", 27, _B64URL))
_f(
    "k8s/secret_data",
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: @@",
    base64.b64encode(_s("k8d", 16).encode()).decode(),
)
_f("k8s/string_data", "kind: Secret\nstringData:\n  api-token: @@", _s("k8sd", 32))
_f("k8s/create_secret_literal", "kubectl create secret generic smtp --from-literal=password=@@ -n mail", _s("k8l", 15))
_f(
    "k8s/kubeconfig_token",
    "users:\n- name: ci\n  user:\n    token: @@",
    "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik" + _s("k8t", 60, _B64URL) + "." + _s("k8t2", 40, _B64URL),
)
_f(
    "k8s/client_key_data",
    "    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=\n    client-key-data: @@",
    "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF" + _s("k8ck", 40, ALNUM + "+/"),
)
_f("k8s/helm_set", "helm upgrade --install grafana grafana/grafana --set adminPassword=@@", _s("helm", 14))
_f(
    "k8s/argocd_initial",
    "$ argocd admin initial-password -n argocd\n@@\n\n This password must be only used for first time login.",
    _s("argo", 16, _B64URL),
)
_f(
    "k8s/describe_pod_env",
    "    Environment:\n      DATABASE_URL:  postgres://app:@@@pg.prod.svc:5432/app\n      LOG_LEVEL:     info",
    _s("kdp", 18),
)
_f("k8s/hard_decoded", "$ kubectl get secret redis -o jsonpath='{.data.pw}' | base64 -d\n@@", _s("kdec", 20))
_f(
    "k8s/rancher_token",
    "rancher login https://rancher.corp --token @@",
    "token-" + _s("rt1", 5, _LOWER) + ":" + _s("rt2", 54, _LOWER),
)
_f("k8s/portainer", "Portainer first login: admin, and I set it to @@", _s("port", 12))

# --- infrastructure as code
_f("iac/tfvars", 'db_password = "@@"\nregion      = "eu-west-1"', _s("tfv", 20))
_f(
    "iac/tfstate",
    '"attributes": {\n  "engine": "postgres",\n  "password": "@@",\n  "username": "admin"',
    _s("tfst", 24),
)
_f("iac/tf_env", "export TF_VAR_vsphere_password='@@'", _s("tfe", 14))
_f(
    "iac/terraform_cloud_token",
    'credentials "app.terraform.io" {\n  token = "@@"\n}',
    _s("tfc1", 14) + ".atlasv1." + _s("tfc2", 67),
)
_f("iac/ansible_vars", "ansible_user: admin\nansible_become_pass: @@", _s("ansb", 14))
_f("iac/ansible_extra_vars", "ansible-playbook site.yml -i prod -e 'ansible_password=@@'", _s("anse", 12))
_f("iac/ansible_vault_password_file", "$ cat ~/.vault_pass.txt\n@@", _s("avp", 24))
_f("iac/puppet_hiera", "profile::db::root_password: '@@'", _s("hiera", 16))
_f("iac/chef_databag", '{"id": "mysql", "root": "@@"}', _s("chef", 18))
_f("iac/pulumi_config", "pulumi config set --secret dbPassword @@", _s("plm", 16))
_f("iac/packer", '"ssh_password": "@@",\n"ssh_username": "packer"', _s("pkr", 12))
_f("iac/cloud_init", "#cloud-config\nchpasswd:\n  list: |\n    ubuntu:@@\n  expire: false", _s("cin", 14))
_f("iac/kickstart", "rootpw --plaintext @@", _s("ks", 14))
_f("iac/preseed", "d-i passwd/root-password password @@", _s("pres", 12))
_f(
    "iac/vsphere_govc",
    "export GOVC_URL=vcenter.corp.local GOVC_USERNAME=administrator@vsphere.local GOVC_PASSWORD=@@",
    _s("govc", 16),
)
_f(
    "iac/hard_unattend_xml",
    "<AdministratorPassword><Value>@@</Value><PlainText>true</PlainText></AdministratorPassword>",
    _s("unat", 14),
)

# --- secrets managers and CI
_f("vault/root_token", "Unseal Key 1: " + _DRAW.b64("unseal", 33) + "\nInitial Root Token: @@", "hvs." + _s("hvs", 24))
_f("vault/unseal_key", "vault operator unseal @@", _DRAW.b64("unseal2", 33))
_f(
    "vault/approle_secret_id",
    "secret_id             @@\nsecret_id_accessor    7b2c1a90-...",
    "-".join(_s("sid" + str(i), n, _HEX) for i, n in enumerate((8, 4, 4, 4, 12))),
)
_f("ci/jenkins_api_token", "curl -X POST -u admin:@@ https://jenkins.corp/job/deploy/build", "11" + _s("jen", 32, _HEX))
_f("ci/jenkins_initial_admin", "$ sudo cat /var/lib/jenkins/secrets/initialAdminPassword\n@@", _s("jia", 32, _HEX))
_f(
    "ci/gitlab_runner_token",
    "gitlab-runner register --url https://gitlab.corp --registration-token @@",
    "glrt-" + _s("glr", 20, _B64URL),
)
_f(
    "ci/gitlab_pat",
    "git remote set-url origin https://oauth2:@@@gitlab.corp/infra/ansible.git",
    "glp" + "at-" + _s("glp", 20, _B64URL),
)
_f("ci/github_pat", "GH_TOKEN=@@ gh release upload v1.4.2 dist/*", "gh" + "p_" + _s("ghp", 36))
_f("ci/github_fine", "token: @@", "github" + "_pat_" + _s("ghf1", 22) + "_" + _s("ghf2", 59))
_f(
    "ci/teamcity",
    "TeamCity agent buildAgent.properties\nserverUrl=https://tc.corp\nauthorizationToken=@@",
    _s("tca", 32, _HEX),
)
_f("ci/artifactory", "curl -H 'X-JFrog-Art-Api: @@' https://artifactory.corp/api/repositories", "AKCp" + _s("jfa", 69))
_f(
    "ci/nexus_npmrc",
    "//nexus.corp/repository/npm/:_auth=@@",
    base64.b64encode(b"deployer:" + _s("nxs", 14).encode()).decode(),
)
_f("ci/sonar", "mvn sonar:sonar -Dsonar.host.url=https://sonar.corp -Dsonar.login=@@", "squ_" + _s("snr", 40, _HEX))

# --- monitoring and alerting
_f("monitoring/grafana_ini", "[security]\nadmin_user = admin\nadmin_password = @@", _s("gfi", 14))
_f("monitoring/grafana_sa_token", "Authorization: Bearer @@", "glsa_" + _s("glsa", 32) + "_" + _s("glsb", 8, _HEX))
_f(
    "monitoring/datadog_api",
    'DD_API_KEY=@@ bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
    _s("dda", 32, _HEX),
)
_f("monitoring/datadog_yaml", "# /etc/datadog-agent/datadog.yaml\napi_key: @@\nsite: datadoghq.eu", _s("ddy", 32, _HEX))
_f(
    "monitoring/pagerduty_routing",
    '{"routing_key": "@@", "event_action": "trigger", "payload": {"summary": "disk full on db1"}}',
    _s("pdr", 32, _HEX),
)
_f("monitoring/pagerduty_api", "Authorization: Token token=@@", "u+" + _s("pda", 18, _B64URL))
_f(
    "monitoring/opsgenie",
    "curl -X POST https://api.opsgenie.com/v2/alerts -H 'Authorization: GenieKey @@'",
    "-".join(_s("og" + str(i), n, _HEX) for i, n in enumerate((8, 4, 4, 4, 12))),
)
_f(
    "monitoring/slack_webhook",
    "alertmanager.yml:\n  slack_configs:\n  - api_url: @@",
    "https://hooks."
    + "slack.com/services/T"
    + _s("sw1", 8, _UPPER)
    + "/B"
    + _s("sw2", 10, _UPPER)
    + "/"
    + _s("sw3", 24),
)
_f(
    "monitoring/teams_webhook",
    "webhook_url: @@",
    "https://corp.webhook.office.com/webhookb2/"
    + _s("tw1", 8, _HEX)
    + "@"
    + _s("tw2", 8, _HEX)
    + "/IncomingWebhook/"
    + _s("tw3", 32, _HEX)
    + "/"
    + _s("tw4", 8, _HEX),
)
_f(
    "monitoring/zabbix_server_conf",
    "# zabbix_server.conf\nDBHost=localhost\nDBUser=zabbix\nDBPassword=@@",
    _s("zbx", 16),
)
_f("monitoring/zabbix_psk", "TLSPSKIdentity=PSK-host01\n$ cat /etc/zabbix/zabbix_agentd.psk\n@@", _s("zpsk", 64, _HEX))
_f("monitoring/nagios_resource", "$USER3$=monitor\n$USER4$=@@", _s("nag", 12))
_f("monitoring/prometheus_basic_auth", "basic_auth:\n  username: prom\n  password: @@", _s("prom", 16))
_f("monitoring/newrelic", "NEW_RELIC_LICENSE_KEY=@@", "eu01xx" + _s("nrl", 34, _HEX))
_f("monitoring/sentry_dsn", "SENTRY_DSN=https://@@@o450123.ingest.sentry.io/5521234", _s("sntr", 32, _HEX))
_f(
    "monitoring/splunk_hec",
    "curl -k https://splunk:8088/services/collector -H 'Authorization: Splunk @@' -d '{\"event\":\"x\"}'",
    "-".join(_s("sp" + str(i), n, _HEX) for i, n in enumerate((8, 4, 4, 4, 12))),
)
_f("monitoring/uptime_kuma_prose", "uptime kuma is on :3001, login me / @@", "kuma" + _s("kuma", 6, _LOWER))
_f(
    "monitoring/hard_telegram_bot",
    "alerts go to the ops Telegram group via bot @corp_ops_bot, @@",
    _s("tg1", 10, _DIGITS) + ":AA" + _s("tg2", 33, _B64URL),
)

# --- backups
_f(
    "backup/restic_password",
    "export RESTIC_REPOSITORY=s3:s3.amazonaws.com/corp-restic\nexport RESTIC_PASSWORD=@@",
    _s("rst", 24),
)
_f("backup/borg_passphrase", "BORG_PASSPHRASE='@@' borg create ::'{hostname}-{now}' /etc /srv", _s("borg", 20))
_f(
    "backup/veeam_encryption",
    "Veeam job 'Nightly-SQL' encryption password (hint 'usual + year'): @@",
    "Veeam" + _s("vee", 4, _DIGITS) + "$",
)
_f("backup/duplicity", "PASSPHRASE=@@ duplicity /home sftp://bak@nas//backups/home", _s("dup", 16))
_f(
    "backup/rclone_conf",
    "[b2]\ntype = b2\naccount = 0012" + _s("b2a", 8, _HEX) + "0000000003\nkey = @@",
    "K001" + _s("b2k", 27),
)
_f("backup/bacula", 'Director {\n  Name = bacula-dir\n  Password = "@@"\n}', _s("bac", 32))
_f(
    "backup/hard_recovery_codes",
    "Bitlocker recovery for LT-0448: @@",
    "-".join(_s("bl" + str(i), 6, _DIGITS) for i in range(8)),
)
_f("backup/seven_zip", "7z a -p@@ -mhe=on offsite-2026-11.7z D:\\exports", _s("7z", 14))
_f(
    "backup/hard_safe_envelope",
    "break-glass envelope #3 (domain admin), transcribed during the DR test: @@",
    _s("bg", 20, ALNUM + "!#%"),
)

# --- Windows and macOS administration
_f("windows/runas_savecred_cmd", "cmdkey /add:fileserver01 /user:CORP\\svc_print /pass:@@", _s("cmdk", 14))
_f("windows/net_use", "net use Z: \\\\fs01\\finance @@ /user:CORP\\acct", _s("netuse", 12))
_f("windows/psexec", "psexec \\\\ws-0231 -u CORP\\helpdesk -p @@ ipconfig /flushdns", _s("psx", 12))
_f("windows/securestring", '$pw = ConvertTo-SecureString "@@" -AsPlainText -Force', _s("pss", 15))
_f(
    "windows/autologon_reg",
    'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword /t REG_SZ /d @@ /f',
    _s("alog", 12),
)
_f(
    "windows/laps_output",
    "PS> Get-LapsADPassword -Identity WS-0231 -AsPlainText\nComputerName : WS-0231\nPassword     : @@\nExpiration   : 12/27/2026",
    _s("laps", 14, ALNUM + "{}[]"),
)
_f(
    "windows/schtasks",
    "schtasks /create /tn NightlySync /tr C:\\scripts\\sync.bat /sc daily /st 02:00 /ru CORP\\svc_sync /rp @@",
    _s("scht", 14),
)
_f("windows/sc_config", "sc.exe config MSSQLSERVER obj= CORP\\sql_svc password= @@", _s("scc", 14))
_f("windows/wmic_remote", "wmic /node:10.0.8.40 /user:administrator /password:@@ os get caption", _s("wmic", 10))
_f("windows/rdp_file_prose", "RDP to the jump box: jumpadmin, pw @@ (it expires monthly)", "Jump" + _s("rdp", 6) + "!")
_f(
    "windows/hard_sticky_note",
    "found on a sticky note under the reception keyboard: @@",
    "Reception" + _s("stn", 4, _DIGITS),
)
_f(
    "windows/intune_wifi_profile",
    "<sharedKey><keyType>passPhrase</keyType><protected>false</protected><keyMaterial>@@</keyMaterial></sharedKey>",
    _s("wlanp", 16),
)
_f("macos/security_add", "security add-generic-password -a svc_munki -s munki-repo -w '@@'", _s("mac1", 16))
_f("macos/find_password_output", '$ security find-generic-password -s "Wi-Fi" -w\n@@', _s("mac2", 12))
_f("macos/jamf_api", "curl -su apiuser:@@ https://corp.jamfcloud.com/JSSResource/computers", _s("jamf", 14))
_f("macos/dscl", "sudo dscl . -passwd /Users/localadmin @@", _s("dscl", 12))
_f("macos/sysadminctl", "sudo sysadminctl -addUser kiosk -fullName Kiosk -password @@", _s("sadc", 10))
_f(
    "macos/fde_recovery",
    "FileVault personal recovery key for MBP-112: @@",
    "-".join(_s("fv" + str(i), 4, _UPPER) for i in range(6)),
)
_f("macos/hard_firmware_pw", "firmware password on the lab macs is @@ (all of them)", "lab" + _s("fw", 5, _LOWER))

# --- scheduled jobs
_f(
    "cron/crontab_mysqldump",
    "0 2 * * * mysqldump -uroot -p'@@' --all-databases | gzip > /backup/all.sql.gz",
    _s("cron1", 14),
)
_f("cron/crontab_curl", "*/5 * * * * curl -fsS -u healthcheck:@@ https://status.corp/ping > /dev/null", _s("cron2", 12))
_f("cron/crontab_env", "MAILTO=ops@corp.example\nFTP_PASS=@@\n30 3 * * * /opt/bin/push-reports.sh", _s("cron3", 12))
_f("cron/lftp", "lftp -u edi,@@ -e 'mirror -R /data/outbound /in; quit' sftp://partner.example", _s("lftp", 12))
_f(
    "cron/systemd_timer_service",
    "[Service]\nType=oneshot\nExecStart=/usr/bin/wget --user=sync --password=@@ -q https://repo.corp/mirror.tar",
    _s("wget", 13),
)
_f(
    "cron/hard_windows_bat",
    "@echo off\nset P=@@\nrobocopy C:\\data \\\\nas\\data /MIR\nnet use \\\\nas\\data %P% /user:nas\\sync",
    _s("bat", 10),
)

# --- incident chat and runbooks
_f(
    "incident/slack_paste",
    "[02:14] @oncall: db1 is read-only again. [02:15] @maria: try the emergency one, root / @@",
    "Emerg" + _s("inc1", 7),
)
_f(
    "incident/runbook_step",
    "Runbook: Failover\n3. On the standby run `repmgr standby promote` as postgres (password: @@)",
    _s("rb1", 14),
)
_f(
    "incident/confluence_table",
    "| System | User | Password |\n|---|---|---|\n| vCenter | administrator@vsphere.local | @@ |",
    _s("conf", 14),
)
_f(
    "incident/postmortem_leak",
    "Postmortem: the old F5 admin password (@@) was still in the runbook wiki.",
    "F5" + _s("pm", 10),
)
_f("incident/hard_teams_german", "kannst du dich mit dem Kennwort @@ am Switch anmelden?", _s("de1", 11))
_f("incident/hard_french", "le mot de passe du routeur du site de Lyon est @@", "Lyon" + _s("fr1", 6, _LOWER))
_f("incident/hard_spanish", "la clave del servidor de correo es @@, cámbiala después", _s("es1", 10))
_f("incident/hard_dutch", "wachtwoord van de printer op de 2e: @@", _s("nl1", 9))
_f("incident/hard_portuguese", "a senha do NAS é @@", "nas" + _s("pt1", 6, _DIGITS))
_f("incident/hard_polish", "hasło do iDRAC na serwerze 4: @@", _s("pl1", 10))
_f("incident/hard_japanese", "ルーターの管理者パスワードは @@ です", _s("ja1", 10))
_f("incident/hard_lowentropy_words", "ok we reset it, he can log in with @@ and must change it", "TrainStation7")
_f(
    "incident/hard_two_line",
    "user: svc_etl\n(the other half you already know is from the vault ticket) @@",
    _s("tl1", 18),
)
_f("incident/hard_it_is", "what was the ESXi root again? -> @@", "esx!" + _s("esx", 8))
_f("incident/hard_spaced_out", "read it back to me: @@", " ".join(_s("spo", 8)))
_f(
    "incident/hard_dashes",
    "PIN for the alarm panel at the DC cage, for the record: @@",
    "4-8-1-" + _s("alm", 1, _DIGITS) + "-9-0",
)
_f("incident/hard_emoji_noise", ">> 🔥🔥 prod down 🔥🔥 use @@ on the LB ui, I'm on a plane ✈️", "LbAdm" + _s("emo", 7))
_f("incident/hard_italian", "la password di admin del firewall è @@", _s("it1", 10))
_f("incident/hard_russian", "пароль от vCenter: @@", _s("ru1", 12))
_f("incident/hard_chinese", "服务器root密码是 @@", _s("zh1", 11))
_f("incident/hard_cli_history", "  512  mysql -u root -p\n  513  @@\n  514  history | tail", _s("hist", 12))
_f("incident/hard_reverse", "backwards so the bot doesn't grab it: @@", _s("rev", 12)[::-1] + "x")

# --- support tickets
_f(
    "ticket/password_reset_reply",
    "Hi Anna, your account has been unlocked. Your temporary password is @@ please change it at next logon.",
    "Temp" + _s("tk1", 5, _DIGITS) + "!",
)
_f(
    "ticket/vendor_remote",
    "Ticket #48211: vendor needs TeamViewer to the PLC PC. ID 1 234 567 890, password @@",
    _s("tv", 6, _LOWER + _DIGITS),
)
_f("ticket/anydesk", "AnyDesk 123 456 789 - unattended access password @@", _s("any", 12))
_f(
    "ticket/jira_comment",
    "Ben Ng added a comment - 10:42\nCreds for the staging box: ubuntu/@@\nPlease close once done.",
    _s("jc", 12),
)
_f(
    "ticket/zendesk_macro",
    "Macro 'Wi-Fi for visitors': The guest network is CORP-GUEST and the code for today is @@.",
    _s("zd", 8, _DIGITS),
)
_f(
    "ticket/servicenow_api",
    "curl 'https://corp.service-now.com/api/now/table/incident' --user 'integration:@@'",
    _s("snow", 14),
)
_f("ticket/freshdesk_key", "curl -u @@:X https://corp.freshdesk.com/api/v2/tickets", _s("fdk", 20))
_f("ticket/hard_voicemail", "voicemail PIN for the helpdesk line: @@", _s("vm", 6, _DIGITS))
_f("ticket/hard_sim_puk", "PUK for the on-call phone SIM: @@", _s("puk", 8, _DIGITS))

# --- industrial and IoT
_f("iot/mqtt_pub", "mosquitto_pub -h broker.plant.local -u sensor01 -P @@ -t line3/temp -m 71.4", _s("mqt", 14))
_f("iot/mosquitto_passwd_cmd", "mosquitto_passwd -b /etc/mosquitto/passwd gateway @@", _s("mqp", 12))
_f("iot/node_red", "adminAuth: { type: 'credentials', users: [{ username: 'admin', password: '@@' }] }", _s("nred", 12))
_f(
    "iot/home_assistant_token",
    "curl -H 'Authorization: Bearer @@' http://homeassistant.local:8123/api/states",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + _s("ha1", 60, _B64URL) + "." + _s("ha2", 43, _B64URL),
)
_f("iot/plc_prose", "Siemens S7-1500 on line 2 has protection level 3, the password is @@", _s("plc", 8))
_f("iot/hmi_default", "the Wonderware HMI login for operators is op / @@", "op" + _s("hmi", 4, _DIGITS))
_f(
    "iot/aws_iot_key",
    "-----BEGIN EC PRIVATE KEY-----\n@@\n-----END EC PRIVATE KEY-----",
    "MHcCAQEEI" + _s("ecpk", 60, ALNUM + "+/"),
)
_f(
    "iot/lorawan_appkey",
    "AppEUI 70B3D57ED0001234  DevEUI 0004A30B001C0530  AppKey @@",
    _s("lora", 32, "0123456789ABCDEF"),
)
_f("iot/esphome", "wifi:\n  ssid: Plant\n  password: @@\nota:\n  password: ota123", _s("esph", 14))
_f("iot/modbus_gateway", "Moxa MGate web console: admin / @@", "moxa" + _s("moxa", 6))
_f(
    "iot/hard_ups_card",
    "APC network card on UPS-2: apc / @@ (we never changed it, sorry)",
    "apc" + _s("apc", 3, _DIGITS),
)
_f(
    "iot/tuya_local_key",
    "tinytuya scan -> Device 'Dock fan'  id bf12a90c3e  local_key @@",
    _s("tuya", 16, "abcdefghijklmnopqrstuvwxyz0123456789`'<>{}|"),
)
_f(
    "iot/hard_bacnet_note",
    "BMS (Niagara) station login for the contractor: contractor1 with @@",
    "Niagara" + _s("bms", 4) + "!",
)

# --- misc vendor tokens seen in ops
_f("vendor/twilio_auth", "TWILIO_ACCOUNT_SID=AC" + _s("twa", 32, _HEX) + "\nTWILIO_AUTH_TOKEN=@@", _s("twt", 32, _HEX))
_f("vendor/stripe_restricted", "STRIPE_KEY=@@", "rk" + "_live_" + _s("str", 99))
_f("vendor/npm_token", "//registry.npmjs.org/:_authToken=@@", "np" + "m_" + _s("npm", 36))
_f("vendor/pypi_token", "[pypi]\nusername = __token__\npassword = @@", "pypi-AgEIcHlwaS5vcmc" + _s("pypi", 60, _B64URL))
_f("vendor/tailscale", "tailscale up --authkey=@@", "tskey-auth-" + _s("ts1", 12) + "-" + _s("ts2", 32))
_f("vendor/ngrok", "ngrok config add-authtoken @@", _s("ngr1", 27) + "_" + _s("ngr2", 21))
_f("vendor/fastly", "FASTLY_API_TOKEN=@@", _s("fst", 32, _B64URL))
_f(
    "vendor/openai_key_in_ops",
    "we wired the ticket summariser in n8n, OPENAI key @@",
    "sk" + "-proj-" + _s("oai", 48, _B64URL),
)
_f(
    "vendor/letsencrypt_eab",
    "certbot register --eab-kid kid_01 --eab-hmac-key @@ --server https://acme.zerossl.com/v2/DV90",
    _s("eab", 86, _B64URL),
)
_f("vendor/pfx_password", "openssl pkcs12 -in wildcard.pfx -out wildcard.pem -nodes -passin pass:@@", _s("pfx", 14))
_f(
    "vendor/java_keystore",
    "keytool -importcert -alias root -file ca.crt -keystore truststore.jks -storepass @@",
    _s("jks", 12),
)
_f("vendor/registrar", "GoDaddy account for corp.example domains: 449120345 / @@", _s("gd", 14))
_f("vendor/hard_dns_tsig", 'key "xfer" {\n  algorithm hmac-sha256;\n  secret "@@";\n};', _DRAW.b64("tsig", 32))
_f("vendor/hard_ipmi_url_in_prose", "the BMC's at https://ADMIN:@@@10.0.9.77 if you need it", _s("bmcu", 10, _UPPER))

# --- more deliberately hard forms: no keyword, human-chosen, odd syntax, noise, split or spelled out
_f(
    "incident/hard_bare_after_user",
    "jump01\nops\n@@\n(same as last quarter +1)",
    "Autumn" + _s("bau", 4, _DIGITS) + "!",
)
_f(
    "incident/hard_phonetic",
    "over the phone: capital K, lower e, v, i, n, 4, 4, exclamation -> @@",
    "Kevin44!" + _s("pho", 2, _DIGITS),
)
_f("incident/hard_csv_row", "hostname,ip,user,secret\nups-2,10.0.7.2,apc,@@", "apc-" + _s("csvr", 8, _LOWER))
_f("incident/hard_yaml_odd_key", "fw01:\n  mgmt: https://10.0.0.254\n  login: admin\n  magic: @@", _s("magk", 14))
_f("incident/hard_json_short_key", '{"h": "sw-core-1", "u": "admin", "p": "@@"}', _s("jshk", 12))
_f("incident/hard_slash_pair", "switch stack A creds are netadmin/@@ fyi", "N3tw0rk" + _s("slp", 4))
_f("incident/hard_colon_triplet", "10.0.9.21:ADMIN:@@", _s("trip", 10, _UPPER))
_f(
    "incident/hard_log_leak",
    "2026-11-27T02:14:09Z DEBUG connecting with dsn host=db1 user=etl pw=@@ sslmode=require",
    _s("logl", 15),
)
_f(
    "incident/hard_stack_trace",
    "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server failed\n[SQL: None]\n(Background on this error) engine url: postgresql+psycopg2://etl:@@@db1/warehouse",
    _s("sqla", 16),
)
_f(
    "incident/hard_url_encoded",
    "curl 'https://nas01:5001/webapi/auth.cgi?api=SYNO.API.Auth&account=admin&passwd=@@&format=sid'",
    _s("urle", 9) + "%21" + _s("urle2", 3),
)
_f(
    "incident/hard_keyword_far",
    "we changed the iLO admin password today after the audit. Ping me if anything breaks. Anyway, for the record, it's now: @@",
    "Ilo" + _s("far", 9),
)
_f(
    "incident/hard_same_as_wifi",
    "the kiosk uses the same thing as the warehouse wifi, i.e. @@",
    "forklift" + _s("swf", 3, _DIGITS),
)
_f(
    "incident/hard_words_passphrase",
    "new break-glass phrase agreed in the meeting: @@",
    "copper kettle " + _s("wpp", 6, "abcdefghijklmnopqrstuvwxyz") + " harbour",
)
_f("incident/hard_swedish", "lösenordet till skrivaren är @@", _s("sv1", 9))
_f("incident/hard_turkish", "sunucunun şifresi @@", _s("tr1", 10))
_f("incident/hard_korean", "NAS 관리자 비밀번호: @@", _s("ko1", 11))
_f(
    "ticket/hard_caps_shouting",
    "USER SAYS HIS OLD PASSWORD WAS @@ AND IT STOPPED WORKING",
    "DRAGON" + _s("cap", 4, _DIGITS),
)
_f(
    "ticket/hard_quoted_reply",
    "> > On Tue, Sam wrote:\n> > ok use @@ for the FTP\n> thanks, that worked",
    _s("qrp", 11),
)
_f(
    "iot/hard_serial_console",
    "U-Boot 2020.04\nHit any key to stop autoboot: 0\n=> setenv bootargs console=ttyS0 root_pw=@@",
    _s("uboot", 10),
)
_f("iot/hard_qr_payload", "scanned the sticker QR on the gateway: WIFI:T:WPA;S:GW-4F21;P:@@;;", _s("qrw", 12))
_f(
    "bmc/hard_label_photo_ocr",
    "OCR of the photo of the label: S/N: CZJ1234ABC  PWD:@@  MAC:3CECEF123456",
    _s("ocr", 8, _UPPER),
)
_f(
    "router/hard_config_diff",
    "--- running\n+++ candidate\n- local-user admin password cipher %^%#abc%^%#\n+ local-user admin password irreversible-cipher @@",
    _s("cdf", 14),
)


# --- ordinary texts: no secret, but near them
def _sha(data: str, algo: str = "sha256") -> str:
    return hashlib.new(algo, data.encode()).hexdigest()


BLIND10_ORDINARY: list[str] = [
    "ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -E chassis status  # -E reads IPMI_PASSWORD from the environment",
    'racadm -r 10.0.9.30 -u root -p "$IDRAC_PASSWORD" getsysinfo',
    "The default iLO password is printed on the pull-out tag on the front of the server.",
    "sshpass -f ~/.ssh/ops.pass ssh ops@10.20.0.15 uptime",
    "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub\n256 SHA256:uZ3mPq1v9cR0Xb7dLk2Yt8WnHfE4sJ6aGoQiVzTyN5c root@web01 (ED25519)",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHk2m0Ew6lJb9xQ7tP3rV1sYc8dNfGhZaKoUeW4iLmBn ops@laptop",
    "Host bastion\n  HostName 203.0.113.7\n  User ops\n  IdentityFile ~/.ssh/id_ed25519\n  ForwardAgent no",
    "ssh: connect to host 10.0.4.12 port 22: Connection refused",
    "Permission denied (publickey,password).",
    "sudo: 3 incorrect password attempts",
    "passwd: password updated successfully",
    "Your password will expire in 5 days. Change it with Ctrl+Alt+Del > Change a password.",
    "PasswordAuthentication no\nPermitRootLogin prohibit-password\nPubkeyAuthentication yes",
    "auth required pam_faillock.so preauth silent deny=5 unlock_time=900",
    "minlen = 14\ndcredit = -1\nucredit = -1\nocredit = -1",
    "Set-ADDefaultDomainPasswordPolicy -Identity corp.local -MinPasswordLength 14 -LockoutThreshold 5",
    "Get-ADUser jdoe -Properties PasswordLastSet,PasswordNeverExpires",
    "net accounts /maxpwage:90",
    "The password for the domain account has been reset. The user was told by phone; nothing is written down here.",
    "Please don't paste passwords in this channel. Use the 1Password share link instead.",
    "Rotate the DSRM password every 180 days and store it in the safe (Runbook DR-12).",
    "New-LocalUser -Name kiosk -Password (Read-Host -AsSecureString 'Password')",
    "$cred = Get-Credential CORP\\svc_backup",
    "$env:DB_PASSWORD = (Get-Secret -Name ProdDb -AsPlainText)",
    'password = os.environ["SMTP_PASSWORD"]',
    "db_password = os.getenv('DB_PASSWORD', '')",
    'token := os.Getenv("VAULT_TOKEN")',
    "const apiKey = process.env.DD_API_KEY;",
    "DB_PASS=${DB_PASS:?DB_PASS must be set}",
    "export AWS_PROFILE=prod && aws sts get-caller-identity",
    '{\n  "UserId": "AIDAJQABLZS4A3QDU576Q",\n  "Account": "123456789012",\n  "Arn": "arn:aws:iam::123456789012:user/ops"\n}',
    "aws_access_key_id = <your-access-key-id>\naws_secret_access_key = <your-secret-access-key>",
    "AWS_SECRET_ACCESS_KEY=changeme",
    "export AWS_SECRET_ACCESS_KEY=$(pass show aws/prod/secret)",
    "An error occurred (InvalidClientTokenId) when calling the GetCallerIdentity operation: The security token included in the request is invalid.",
    "An error occurred (ExpiredToken): The security token included in the request is expired",
    "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
    "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
    "aws ssm get-parameter --name /prod/db/password --with-decryption",
    "i-0a1b2c3d4e5f67890 running t3.large eu-west-1b",
    "sg-0123456789abcdef0 allows 443 from 0.0.0.0/0",
    "az keyvault secret show --vault-name corp-kv --name sql-admin --query value -o tsv",
    "az storage account keys renew --account-name corpbackups --key primary",
    "AccountKey=<redacted>",
    "Subscription ID: 9a3f2c1e-4b5d-4e6f-8a7b-0c1d2e3f4a5b (Pay-As-You-Go)",
    "gcloud auth activate-service-account --key-file=$HOME/keys/tf.json",
    '"client_email": "tf@corp-ops.iam.gserviceaccount.com", "client_id": "104331768263559871234"',
    "projects/corp-ops/secrets/db-password/versions/latest",
    "docker login registry.corp.example -u ci --password-stdin < /run/secrets/registry",
    "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
    'Error response from daemon: Get "https://registry.corp.example/v2/": unauthorized: incorrect username or password',
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "postgres:16.4-alpine@sha256:" + _sha("postgres:16.4-alpine"),
    "REPOSITORY   TAG     IMAGE ID       CREATED       SIZE\nnginx        1.27    3b25b682ea82   2 weeks ago   192MB",
    "CONTAINER ID   IMAGE          STATUS\n4f1c9a2be7d3   redis:7.2      Up 3 days (healthy)",
    "environment:\n  POSTGRES_PASSWORD_FILE: /run/secrets/pg_password",
    "secrets:\n  pg_password:\n    file: ./secrets/pg_password.txt",
    "kubectl create secret generic db --from-file=password=./password.txt --dry-run=client -o yaml",
    "kubectl get secret db -o yaml | grep -v password",
    "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password",
    'Error from server (Forbidden): secrets is forbidden: User "dev" cannot list resource "secrets" in API group "" in the namespace "prod"',
    "serviceAccountName: external-secrets\nautomountServiceAccountToken: false",
    "certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t  # (public CA cert, truncated)",
    "uid: 3f8e2a1c-9b7d-4c6e-8f5a-2d1b0c9e8f7a",
    "helm upgrade grafana grafana/grafana --set admin.existingSecret=grafana-admin",
    "The Argo CD initial admin password is stored in the argocd-initial-admin-secret; delete it after first login.",
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
    "password = var.db_password",
    "  # aws_db_instance.main will be updated in-place\n  ~ password = (sensitive value)",
    "terraform state show aws_db_instance.main | grep -v password",
    'data "vault_generic_secret" "db" { path = "secret/prod/db" }',
    'ansible_become_pass: "{{ vault_become_pass }}"',
    "$ANSIBLE_VAULT;1.1;AES256\n" + _sha("vault-blob-1") + "\n" + _sha("vault-blob-2"),
    "ansible-playbook site.yml --ask-vault-pass --ask-become-pass",
    "rootpw --iscrypted --lock",
    "chpasswd: { expire: true }\nssh_pwauth: false",
    "Key Version: 1\nSealed: false\nTotal Shares: 5\nThreshold: 3",
    "vault kv get -field=password secret/prod/db",
    "Error making API request. Code: 403. Errors: * permission denied",
    "vault token lookup -accessor 8609694a-cdbc-db9b-d345-e782dbb562ed",
    "Jenkins credentials id: prod-db-password (Secret text) used in withCredentials([string(credentialsId: 'prod-db-password', variable: 'PW')])",
    'echo "Using token ****" # masked by the CI',
    "[Pipeline] withCredentials\nMasking supported pattern matches of $PW\n[Pipeline] sh\n+ ./deploy.sh",
    '- name: Login\n  run: echo "${{ secrets.REGISTRY_TOKEN }}" | docker login ghcr.io -u $GITHUB_ACTOR --password-stdin',
    "commit 3e1f0a9c7d2b4e58f6a1c0d9b8e7f6a5c4d3b2a1\nAuthor: ops-bot <ops@corp.example>\n\n    rotate grafana admin password (value in vault)",
    "Merge pull request #1182 from infra/remove-hardcoded-passwords",
    "git log --oneline -3\n9c4e2f1 fix backup retention\n7a1b3d8 bump zabbix agent\n2e5f9c0 add redis requirepass from vault",
    "integrity sha512-" + base64.b64encode(hashlib.sha512(b"left-pad@1.3.0").digest()).decode(),
    "SHA256 (restic_0.17.3_linux_amd64.bz2) = " + _sha("restic_0.17.3"),
    "sha256sum ubuntu-24.04.1-live-server-amd64.iso\n"
    + _sha("ubuntu-24.04.1")
    + "  ubuntu-24.04.1-live-server-amd64.iso",
    "md5: " + _sha("firmware-2.4.1", "md5") + "  ILO5_304.bin",
    "Firmware version 2.81 (build 2024-09-11), BIOS U46 v2.90",
    "iDRAC9 7.00.00.171, Lifecycle Controller 7.00.00.171",
    "Service Tag: 7XK2QH3, Express Service Code: 16431127911",
    "Serial number: CZJ1234ABC, product number: 875672-B21",
    "MAC address: 00:1A:2B:3C:4D:5E",
    "BMC MAC 3c:ec:ef:12:34:56, IP 10.0.9.21/24, gateway 10.0.9.1",
    "ipmitool sel list | tail -3\n 1a3 | 11/26/2026 | 23:10:04 | Power Supply PS2 | Failure detected | Asserted",
    "The printer's EWS password can be set under Security > General Security; the default is blank on older models.",
    "Scan to folder failed: check the username, the password and the SMB share permissions on \\\\fs01\\scans.",
    "Synology DSM 7.2.2-72806 Update 2",
    "Volume 1: 14.2 TB of 21.8 TB used, RAID 6, healthy",
    "rtsp://192.168.1.64:554/Streaming/Channels/101 (use the camera credentials from the vault)",
    "Hikvision DS-2CD2143G2-I firmware V5.7.3 build 220112",
    "enable secret 9 $9$<hash omitted>",
    "service password-encryption",
    "aaa new-model\naaa authentication login default group tacacs+ local",
    "snmp-server community <COMMUNITY> RO 10",
    "snmpwalk -v2c -c public 10.0.0.1 sysDescr",
    "SNMPv2-MIB::sysDescr.0 = STRING: Cisco IOS Software, C2960X Software, Version 15.2(7)E8",
    "interface GigabitEthernet1/0/24\n description uplink-core\n switchport mode trunk\n switchport trunk allowed vlan 10,20,30",
    "%SEC_LOGIN-4-LOGIN_FAILED: Login failed [user: admin] [Source: 10.0.8.15] [localport: 22] [Reason: Login Authentication Failed]",
    'set system login user netops class super-user authentication ssh-ed25519 "ssh-ed25519 AAAAC3Nza... netops"',
    'config vpn ipsec phase1-interface\n edit "to-branch"\n  set psksecret ENC <stored in FortiManager>',
    "[Peer]\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=\nAllowedIPs = 10.66.0.0/24\nEndpoint = vpn.corp.example:51820",
    "wg show wg0\ninterface: wg0\n  public key: HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw=\n  listening port: 51820",
    "PrivateKey = (run `wg genkey` and keep it on the box)",
    "auth-user-pass /etc/openvpn/client/auth.txt\nauth-nocache",
    "TLS Error: TLS key negotiation failed to occur within 60 seconds (check your network connectivity)",
    "IKE SA established between 198.51.100.4[198.51.100.4]...203.0.113.10[203.0.113.10]",
    "AnyConnect: Login failed. (The username or password is incorrect.)",
    'network={\n    ssid="CORP"\n    key_mgmt=WPA-EAP\n    eap=PEAP\n    identity="host/ws-0231.corp.local"\n}',
    "The guest Wi-Fi password changes every Monday; reception has the card.",
    "ldapsearch -x -H ldaps://dc01.corp.local -D 'CN=svc-ldap,OU=Service,DC=corp,DC=local' -y /etc/ldap.pw -b 'DC=corp,DC=local' '(sAMAccountName=jdoe)'",
    "dn: CN=John Doe,OU=Users,DC=corp,DC=local\nobjectGUID:: 9mG7cGaBn0y4jU3xq8lK2w==\npwdLastSet: 133768243210000000",
    "objectSid: S-1-5-21-3623811015-3361044348-30300820-1013",
    "userAccountControl: 66048 (NORMAL_ACCOUNT, DONT_EXPIRE_PASSWORD)",
    "ldap_bind: Invalid credentials (49)\n\tadditional info: 80090308: LdapErr: DSID-0C09044E, comment: AcceptSecurityContext error, data 52e, v4563",
    "kinit: Preauthentication failed while getting initial credentials",
    "Ticket cache: FILE:/tmp/krb5cc_1000\nDefault principal: admin@CORP.LOCAL\nValid starting     Expires\n11/27/26 21:00:01  11/28/26 07:00:01  krbtgt/CORP.LOCAL@CORP.LOCAL",
    "Keytab name: FILE:/etc/krb5.keytab\nKVNO Principal\n   3 host/web01.corp.local@CORP.LOCAL",
    "The krbtgt account password must be reset twice to invalidate existing tickets.",
    "Tenant ID: 0b7d1e4a-2c3f-4d5e-8f9a-1b2c3d4e5f60, App (client) ID: 5f1c2d0e-7a41-4d0b-9e2f-1a9b3c4d5e6f",
    "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.",
    "Okta: API token 'terraform' was revoked by admin@corp.example",
    "smtpd_sasl_auth_enable = yes\nsmtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd\nsmtp_sasl_security_options = noanonymous",
    "postmap /etc/postfix/sasl_passwd && chmod 600 /etc/postfix/sasl_passwd*",
    "535 5.7.8 Username and Password not accepted.",
    "DKIM-Signature: v=1; a=rsa-sha256; d=corp.example; s=mail2026; bh="
    + base64.b64encode(hashlib.sha256(b"body").digest()).decode(),
    'mail2026._domainkey.corp.example TXT "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo (public key, truncated)"',
    "mysql -h db-prod-02 -u root -p -e 'SHOW PROCESSLIST'",
    "ERROR 1045 (28000): Access denied for user 'root'@'10.0.8.15' (using password: YES)",
    "ALTER USER 'app'@'%' IDENTIFIED BY '<new password>';",
    "CREATE USER reporting WITH PASSWORD :'pw';  -- psql variable set with \\set pw from the vault",
    'FATAL:  password authentication failed for user "postgres"',
    'psql "host=db1 dbname=billing user=postgres sslmode=require"',
    'pg_dump: error: connection to server at "db1" (10.0.3.7), port 5432 failed: fe_sendauth: no password supplied',
    "Login failed for user 'sa'. Reason: Password did not match that for the login provided. [CLIENT: 10.0.8.40]",
    "Server=tcp:sql01.corp.local,1433;Database=ERP;Integrated Security=SSPI;Encrypt=True;",
    "ORA-01017: invalid username/password; logon denied",
    "redis-cli -h cache01 --askpass INFO memory",
    "NOAUTH Authentication required.",
    "elasticsearch-reset-password -u elastic -i",
    "rabbitmqctl list_users\nadmin\t[administrator]\nmonitoring\t[monitoring]",
    "Zabbix agent 7.0.6, TLSConnect=psk, TLSPSKIdentity=PSK-host01, TLSPSKFile=/etc/zabbix/zabbix_agentd.psk",
    "basic_auth:\n  username: prom\n  password_file: /etc/prometheus/prom.pw",
    "ALERT DiskAlmostFull db1:/var 92 % (threshold 90 %) fingerprint 4b1c7e2a9f0d3e58",
    "PagerDuty incident #48211 triggered: db1 replication lag > 300s (dedup_key db1-replag)",
    "Datadog: DD_API_KEY is not set; the agent will not send metrics.",
    "Grafana: failed to log in: invalid username or password (user=admin, remote=10.0.8.15)",
    "restic snapshots\nID        Time                 Host   Paths\n4f1c2d0e  2026-11-27 02:00:03  db1    /var/lib/postgresql",
    "Fatal: wrong password or no key found",
    "borg list ::\ndb1-2026-11-27T02:00:03  Fri, 2026-11-27 02:00:05 [" + _sha("borg-archive-id") + "]",
    "Veeam: Job 'Nightly-SQL' finished with Success. Processed 412 GB, transferred 38 GB.",
    "BitLocker protector ID: {9A3F2C1E-4B5D-4E6F-8A7B-0C1D2E3F4A5B} (Numerical Password; value escrowed to AD)",
    "manage-bde -protectors -get C: -type RecoveryPassword  # shows the key: run it only on the console",
    "cmdkey /list\nTarget: Domain:target=fileserver01\nType: Domain Password\nUser: CORP\\svc_print",
    "net use Z: \\\\fs01\\finance /user:CORP\\acct *",
    "psexec \\\\ws-0231 -u CORP\\helpdesk ipconfig /flushdns  (prompts for the password)",
    "Event ID 4625: An account failed to log on. Failure Reason: Unknown user name or bad password.",
    "Event ID 4724: An attempt was made to reset an account's password. Target Account Name: jdoe",
    "schtasks /create /tn NightlySync /tr C:\\scripts\\sync.bat /sc daily /st 02:00 /ru SYSTEM",
    "Get-LapsADPassword -Identity WS-0231 -AsPlainText  # run this yourself; don't paste the output",
    "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon  AutoAdminLogon REG_SZ 0",
    'security find-generic-password -s "Wi-Fi" -w  # prompts in the GUI for the admin password',
    "fdesetup status\nFileVault is On.",
    "Jamf Pro 11.11.0, computer ID 1182, serial C02XK1ABJG5H",
    "0 2 * * * /usr/local/bin/backup.sh >> /var/log/backup.log 2>&1",
    "[02:14] @oncall: db1 is read-only again. [02:15] @maria: failing over now, creds are in the vault under prod/db1.",
    "Runbook: Failover\n3. On the standby run `repmgr standby promote` as postgres (password: see Vault secret/prod/repmgr)",
    "| System | User | Password |\n|---|---|---|\n| vCenter | administrator@vsphere.local | (in 1Password: Infra/vCenter) |",
    "Postmortem action item: move all runbook passwords into the vault and rotate them (owner: infra, due 2026-12-15).",
    "Ticket #48212: user cannot log in after the password change; cached credentials on the laptop. Resolved by signing in on the VPN.",
    "Hi Anna, your account has been unlocked. You'll receive a one-time link by SMS to set a new password.",
    "TeamViewer ID 1 234 567 890 (the password is shown on the vendor's screen; read it to them by phone)",
    "mosquitto_pub -h broker.plant.local -t line3/temp -m 71.4 --cafile ca.crt --cert sensor01.crt --key sensor01.key",
    "allow_anonymous false\npassword_file /etc/mosquitto/passwd\nlistener 8883",
    "AppEUI 70B3D57ED0001234  DevEUI 0004A30B001C0530  (AppKey in the LNS, not here)",
    "Siemens S7-1500 CPU 1515-2 PN, firmware V3.1.2, protection level: full access (no protection) on the test rig",
    "OPC UA endpoint opc.tcp://10.50.0.30:4840, security policy Basic256Sha256, mode SignAndEncrypt",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n(public certificate, truncated)\n-----END CERTIFICATE-----",
    "SHA1 Fingerprint=4F:1C:2D:0E:7A:41:4D:0B:9E:2F:1A:9B:3C:4D:5E:6F:70:81:92:A3",
    "openssl pkcs12 -in wildcard.pfx -out wildcard.pem -nodes  # asks for the import password",
    "keytool -list -keystore truststore.jks  (Enter keystore password: )",
    "Certificate expires: Dec 31 23:59:59 2026 GMT, CN=*.corp.example, issuer R11",
    "The token is valid for 90 days; after that the pipeline fails with 401 until someone rotates it.",
    "To rotate the API key, go to Settings > API > Regenerate, then update the secret in Vault.",
    "Never commit .env files. Add them to .gitignore and use .env.example with placeholders like DB_PASS=changeme.",
    "A password manager generates and remembers strong passwords so people don't reuse them.",
    "Build 2026.11.27.3 (" + _sha("build-2026.11.27.3", "sha1") + ") deployed to prod by ops-bot",
]
