package permit

// round16bFiles are the corpus fixture's files for red team 16b: secrets
// by content in shapes the scanner missed (finding 7), and their
// harmless look-alikes; repositories whose remotes are local folders,
// outside or inside (by url, insteadOf, a group, the branch's remote).
func round16bFiles(wd, home, out string) map[string]string {
	return map[string]string{
		wd + "/j16/settings.xml":    "<settings><servers><server><id>corp</id><username>deploy</username><password>hunter2-super-secret</password></server></servers></settings>\n",
		wd + "/j16/settings-ok.xml": "<settings><servers><server><id>corp</id><password>${env.MVN_PASSWORD}</password></server></servers></settings>\n",
		wd + "/j16/n.txt":           "Authorization: Basic YWRtaW46c2VjcmV0cGFzc3dvcmQ=\n",
		wd + "/j16/call.sh":         "curl -H \"Authorization: Bearer 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c\" https://api.example.com\n",
		wd + "/j16/call2.sh":        "curl -u admin:Sup3rS3cret https://api.example.com\n",
		wd + "/j16/deploy.sh":       "mysql -h db -u root -pS3cretPass app < dump.sql\n",
		wd + "/j16/hook.txt":        "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx\n",
		wd + "/j16/dh.txt":          "https://discord.com/api/webhooks/123456789012345678/abcdefghijklmnopqrstuvwxyz0123456789ABCDEF\n",
		wd + "/j16/sentry.txt":      "SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o123456.ingest.sentry.io/4504\n",
		wd + "/j16/README.md": "Run mysql -u root -p app and type the password; use -p for the port of the dev server.\n" +
			"curl -u $USER:$TOKEN https://api.example.com, or send Authorization: Bearer $TOKEN; Slack: https://hooks.slack.com/services/...\n",
		wd + "/j16/db.ini":           "[db]\npassword = hunter2-super-secret\n",
		home + "/.m2/settings.xml":   "<settings/>\n",
		wd + "/j16/.m2/settings.xml": "<settings/>\n",
		wd + "/rm16/.git/HEAD":       "ref: refs/heads/main\n",
		wd + "/rm16/.git/config": "[remote \"origin\"]\n\turl = " + out + "/evil\n[remote \"up\"]\n\turl = file://" + out + "/evil\n" +
			"[remote \"side\"]\n\turl = ../../sib\n[remote \"mine\"]\n\turl = ./vendor/lib\n\tpushurl = " + out + "/evil\n" +
			"[remote \"gh\"]\n\turl = https://github.com/o/r.git\n[remote \"short\"]\n\turl = loc:r\n" +
			"[url \"" + out + "/\"]\n\tinsteadOf = loc:\n[remotes]\n\tsafe = mine gh\n\tbad = gh side\n",
		wd + "/rm16b/.git/HEAD":   "ref: refs/heads/main\n",
		wd + "/rm16b/.git/config": "[remote \"gh\"]\n\turl = https://github.com/o/r.git\n[remote \"mine\"]\n\turl = vendor/lib\n[branch \"main\"]\n\tremote = mine\n",
	}
}
