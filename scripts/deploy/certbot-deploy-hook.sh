#!/bin/sh
# certbot deploy hook (docs/server/deploy.md): after each renewal of mail.example.org,
# hand the new certificate to tempmail-tui (readable by its group only) and make it reload: SIGHUP makes
# serve read the files again, and a pair that does not check out is refused while the old one stays.
#
#   sudo install -m 0755 scripts/deploy/certbot-deploy-hook.sh /etc/letsencrypt/renewal-hooks/deploy/tempmail-tui.sh
#   (run it once by hand after the first certificate: RENEWED_LINEAGE=/etc/letsencrypt/live/mail.example.org)
# The reload is skipped while the service is not running (the first run comes before it is installed).
set -eu
case "${RENEWED_LINEAGE:-}" in
  */mail.example.org) ;;
  *) exit 0 ;;
esac
install -d -m 0750 -o root -g tempmail /etc/tempmail-tui/tls
install -m 0640 -o root -g tempmail "$RENEWED_LINEAGE/fullchain.pem" /etc/tempmail-tui/tls/fullchain.pem
install -m 0640 -o root -g tempmail "$RENEWED_LINEAGE/privkey.pem" /etc/tempmail-tui/tls/privkey.pem
systemctl try-reload-or-restart tempmail-tui
