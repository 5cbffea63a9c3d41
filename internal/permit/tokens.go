package permit

import (
	"bytes"
	"regexp"
	"strings"
)

// tokenShape is a key or token of a well-known service: the literal it
// starts with, and the rest of its shape. One list serves three checks:
// an address carrying the start of one (url-data, secretShapeExpr), a
// configuration file holding one (configSecretValue), and any file a
// command or the Read tool names (tokenContent, with the whole shape).
type tokenShape struct {
	lit  string // literal start, also the quick filter before the expression
	expr string // the expression from lit on (the full shape)
}

// inName are the literals that may end a longer name (DB_PASSWORD=…); the
// others start a word.
var inName = map[string]bool{"password": true, "PASSWORD": true, "Password": true,
	"aws_secret_access_key": true, "AWS_SECRET_ACCESS_KEY": true, ":AA": true, "Q~": true}

var tokenShapes = []tokenShape{
	{"ghp_", `ghp_[A-Za-z0-9]{30,}`}, {"gho_", `gho_[A-Za-z0-9]{30,}`}, {"ghs_", `ghs_[A-Za-z0-9]{30,}`},
	{"ghu_", `ghu_[A-Za-z0-9]{30,}`}, {"ghr_", `ghr_[A-Za-z0-9]{30,}`}, // GitHub
	{"github_pat_", `github_pat_[A-Za-z0-9_]{40,}`},                        // GitHub fine-grained
	{"glpat-", `glpat-[A-Za-z0-9_\-]{20,}`},                                // GitLab
	{"xox", `xox[abposre]-[A-Za-z0-9\-]{10,}`},                             // Slack
	{"npm_", `npm_[A-Za-z0-9]{36}`},                                        // npm
	{"sk-", `sk-(?:proj-|ant-|live_|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}`}, // OpenAI, Anthropic, Stripe
	{"AKIA", `AKIA[0-9A-Z]{16}`}, {"ASIA", `ASIA[0-9A-Z]{16}`},             // AWS
	{"AIza", `AIza[0-9A-Za-z_\-]{35}`},                                             // Google
	{"pypi-", `pypi-[A-Za-z0-9_\-]{50,}`},                                          // PyPI
	{"SG.", `SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}`},                        // SendGrid
	{"hvs.", `hvs\.[A-Za-z0-9_\-]{24,}`},                                           // Vault
	{"eyJ", `eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}`}, // a JWT
	// Red team 7: more services' keys.
	{"sk_live_", `sk_live_[A-Za-z0-9]{20,}`}, {"rk_live_", `rk_live_[A-Za-z0-9]{20,}`}, // Stripe
	{"hf_", `hf_[A-Za-z0-9]{30,}`},                        // Hugging Face
	{"dop_v1_", `dop_v1_[a-f0-9]{64}`},                    // DigitalOcean
	{"dapi", `dapi[a-f0-9]{32}`},                          // Databricks
	{"sbp_", `sbp_[a-f0-9]{40}`},                          // Supabase
	{"AGE-SECRET-KEY-1", `AGE-SECRET-KEY-1[0-9A-Z]{50,}`}, // age
	{"AccountKey=", `AccountKey=[A-Za-z0-9+/=]{40,}`},     // Azure storage
	{"glrt-", `glrt-[A-Za-z0-9_\-]{20,}`},                 // GitLab runner
	{"shpat_", `shpat_[a-fA-F0-9]{32}`},                   // Shopify
	// Red team 8b.
	{"lin_api_", `lin_api_[A-Za-z0-9]{32,}`}, // Linear
	// Red team 9b.
	{"gsk_", `gsk_[A-Za-z0-9]{40,}`}, {"xai-", `xai-[A-Za-z0-9]{40,}`}, // Groq, xAI
	{"r8_", `r8_[A-Za-z0-9]{30,}`}, {"ntn_", `ntn_[A-Za-z0-9]{40,}`}, // Replicate, Notion
	{"PMAK-", `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`}, {"HRKU-", `HRKU-[A-Za-z0-9_\-]{20,}`}, // Postman, Heroku
	{"glptt-", `glptt-[A-Za-z0-9_\-]{20,}`}, {"dckr_pat_", `dckr_pat_[A-Za-z0-9_\-]{20,}`}, // GitLab trigger, Docker Hub
	{"key-", `key-[0-9a-f]{32}`}, {"SK", `SK[0-9a-fA-F]{32}`}, // Mailgun, Twilio
	{"django-insecure-", `django-insecure-[^\s'"]{20,}`},
	{":AA", `:AA[A-Za-z0-9_\-]{33}`},    // Telegram's bot token (digits before it)
	{"Q~", `Q~[A-Za-z0-9_~.\-]{31,34}`}, // an Azure client secret (characters before it)
}

// otherSecretShapes are secrets known by their context rather than a
// prefix: a URL with a password (postgres://user:pass@host; not a
// ${VAR}, <placeholder> or the word password), a netrc entry, a docker
// config's auths.
var otherSecretShapes = []tokenShape{
	{"://", `[A-Za-z][A-Za-z0-9+.\-]*://[^/\s@:"'$<{]*:[^/\s@"'$<{*]{3,}@`},
	// An AWS secret key, a bot token and a password, known by their name
	// (a value of 8 or more characters that is not a ${VAR} or <example>).
	{"aws_secret_access_key", `aws_secret_access_key\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}`},
	{"AWS_SECRET_ACCESS_KEY", `AWS_SECRET_ACCESS_KEY\s*[=:]\s*["']?[A-Za-z0-9/+=]{40}`},
	{"password", `password["']?\s*[=:]\s*["']?[^\s"'$<{]{8,}`},
	{"PASSWORD", `PASSWORD["']?\s*[=:]\s*["']?[^\s"'$<{]{8,}`},
	{"Password", `Password["']?\s*[=:]\s*["']?[^\s"'$<{]{8,}`},
	{"bot", `bot[0-9]{8,10}:[A-Za-z0-9_\-]{35}`}, // Telegram, in an API URL
	{"machine", `machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+\S+`},
	{"\"auth\"", `"auth"\s*:\s*"[A-Za-z0-9+/=]{12,}"`},
	{"client-key-data", `client-key-data:\s*[A-Za-z0-9+/=]{40,}`}, // a kubeconfig's private key
	// Red team 16b, finding 7: Maven's settings.xml, an Authorization
	// header, curl -u and mysql -p with a password, chat webhooks, a
	// Sentry DSN (a 32-hex key as the URL's user); -p alone, a $VAR or
	// <placeholder> is not one.
	{"<password>", `<password>[^<$\s{]{4,}</password>`},
	{"Authorization", `Authorization["']?\s*:\s*(?i:basic|bearer|token)\s+[A-Za-z0-9._~+/=\-]{16,}`},
	{"authorization", `authorization["']?\s*:\s*(?i:basic|bearer|token)\s+[A-Za-z0-9._~+/=\-]{16,}`},
	{"curl", `curl\s(?:[^\n|;&]*\s)?(?:-u\s*|--user[=\s]\s*)["']?[^\s:"'$<-][^\s:"'$<]*:[^\s"'$<@]{4,}`},
	{"mysql", `mysql[a-z]*\s(?:[^\n|;&]*\s)?-p[^\s"'$<-][^\s"'$<]{3,}`},
	{"hooks.slack.com/", `hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-Za-z0-9]{16,}`},
	{"discord", `discord(?:app)?\.com/api/webhooks/[0-9]{10,}/[A-Za-z0-9_\-]{30,}`},
	{"://", `[A-Za-z][A-Za-z0-9+.\-]*://[0-9a-f]{32}(?::[0-9a-f]{32})?@[A-Za-z0-9.\-]+/[0-9]+`},
}

// namedValueKeys are the names whose literal value is a secret wherever
// it is written (API_KEY=…, "apiKey": "…", SECRET_KEY = '…'): a value of
// 8 or more characters of a token's alphabet, alone up to the end of the
// line, so that code reading it from elsewhere (process.env.API_KEY,
// os.environ["API_KEY"], get_key()) is not taken for one.
var namedValueKeys = []string{"API_KEY", "api_key", "apiKey", "ApiKey", "APIKEY", "apikey", "API_TOKEN", "api_token",
	"apiToken", "SECRET_KEY", "secret_key", "secretKey", "CLIENT_SECRET", "client_secret", "clientSecret",
	"ACCESS_TOKEN", "access_token", "accessToken", "AUTH_TOKEN", "auth_token", "authToken", "PRIVATE_KEY", "private_key"}

// named marks the literals of namedValueKeys.
var named = setOf(namedValueKeys...)

// namedValueShapes are the shapes of namedValueKeys (each also a name's
// ending: DJANGO_SECRET_KEY=…).
func namedValueShapes() []tokenShape {
	var out []tokenShape
	for _, k := range namedValueKeys {
		out = append(out, tokenShape{k, regexp.QuoteMeta(k) + `["']?\s*[=:]\s*["']?[A-Za-z0-9_\-+/=]{8,}["']?[,;]?[ \t]*(?:\r?\n|$)`})
	}
	return out
}

// namedPlaceholder reports a named value written as an example
// (API_KEY=your-key-here, apiKey: "changeme").
func namedPlaceholder(m []byte) bool {
	l := bytes.ToLower(m)
	for _, w := range []string{"your", "example", "xxxxxx", "changeme", "placeholder", "replace", "dummy", "redacted"} {
		if bytes.Contains(l, []byte(w)) {
			return true
		}
	}
	return false
}

// placeholderPasswords are the passwords of URLs written as examples.
var placeholderPasswords = []string{":password@", ":pass@", ":secret@", ":changeme@", ":xxx@", ":PASSWORD@"}

// secretShapeExpr is the start of a key or token of a well-known service
// (8 characters after the literal: an address may carry a piece of one).
var secretShapeExpr = func() string {
	var lits []string
	for _, s := range tokenShapes {
		if len(s.lit) < 3 || s.lit == "key-" || s.lit == ":AA" {
			continue // too common in addresses to stand for a key by their start
		}
		l := regexp.QuoteMeta(s.lit)
		if s.lit == "xox" {
			l = `xox[abposre]-`
		}
		lits = append(lits, l)
	}
	return `(` + strings.Join(lits, "|") + `)[A-Za-z0-9_\-]{8}`
}()

// allShapes are tokenShapes, otherSecretShapes and the named values, in one list.
var allShapes = append(append(append([]tokenShape{}, tokenShapes...), otherSecretShapes...), namedValueShapes()...)

// tokenContent matches one whole shape of allShapes, anchored at its literal.
var tokenContent = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range allShapes {
		e := s.expr
		if s.lit == "://" {
			e = e[strings.Index(e, "://"):]
		}
		out = append(out, regexp.MustCompile(`^(?:`+e+`)`))
	}
	return out
}()

// byFirst lists, for each byte, the shapes whose literal starts with it.
var byFirst = func() (t [256][]int) {
	for i, s := range allShapes {
		t[s.lit[0]] = append(t[s.lit[0]], i)
	}
	return t
}()

// maxTokenTries bounds how many literals are matched against their shape
// in one file: a file stuffed with them counts as holding a token rather
// than making every permission request wait.
const maxTokenTries = 20000

// hasToken reports a key or token of a well-known shape in data: one pass
// looks for the shapes' literals, and a shape is matched only from where
// its literal starts (after a character that cannot be part of a word).
func hasToken(data []byte) bool {
	found := false
	scanTokens(data, func(int, int) bool { found = true; return false })
	return found
}

// tokenSpans returns where the keys and tokens of data are (start and
// end of each match; a file stuffed with literals past maxTokenTries is
// one span over the whole).
func tokenSpans(data []byte) [][2]int {
	var out [][2]int
	scanTokens(data, func(i, j int) bool { out = append(out, [2]int{i, j}); return true })
	return out
}

// scanTokens calls each with the start and end of every key or token of
// data it finds, until each returns false.
func scanTokens(data []byte, each func(start, end int) bool) {
	tries := 0
	for j := 0; j < len(data); j++ {
		for _, i := range byFirst[data[j]] {
			s := allShapes[i]
			if len(data)-j < len(s.lit) || data[j+1] != s.lit[1] || !bytes.HasPrefix(data[j:], []byte(s.lit)) {
				continue
			}
			if s.lit == "://" {
				k := j
				for k > 0 && j-k < 32 && isSchemeByte(data[k-1]) {
					k--
				}
				if k == j || !isLetter(data[k]) || k > 0 && isWordByte(data[k-1]) {
					continue
				}
			} else if j > 0 && isWordByte(data[j-1]) && !inName[s.lit] && !named[s.lit] {
				continue
			}
			if tries++; tries > maxTokenTries {
				each(0, len(data))
				return
			}
			win := data[j:min(len(data), j+400)]
			if loc := tokenContent[i].FindIndex(win); loc != nil && !placeholder(win[:loc[1]]) && !(named[s.lit] && namedPlaceholder(win[:loc[1]])) {
				if !each(j, j+loc[1]) {
					return
				}
			}
		}
	}
}

func isLetter(c byte) bool     { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isWordByte(c byte) bool   { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }
func isSchemeByte(c byte) bool { return isWordByte(c) && c != '_' || c == '+' || c == '.' || c == '-' }

func placeholder(m []byte) bool {
	for _, p := range placeholderPasswords {
		if bytes.HasSuffix(m, []byte(p)) {
			return true
		}
	}
	return false
}
