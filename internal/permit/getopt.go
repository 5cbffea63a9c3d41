package permit

import (
	"path"
	"sort"
	"strings"
)

// shortValues are the short options that take a value, per command, for
// the commands whose option clusters splitShort takes apart.
var shortValues = map[string]string{
	"sort": "kotST", "jq": "L", "gojq": "L", "yq": "L", "file": "mfFeP",
	"curl": "AbcCdDeEFHKmoPQrTuUwxXyYz", "wget": "aoOPeBiDIXlQtTUwY", "tree": "LPIHToR", "unzip": "dxX", "tar": "bCfFgHIKLNTVX", "zip": "bntx",
}

// splitShort takes single-dash option clusters apart the way GNU getopt
// reads them: jq -nf q.jq is jq -n -f q.jq and sort -so F is sort -s -o F
// (red team 10b, findings 14 and 15). A letter of takes ends its cluster:
// the rest is its value, kept glued on (-ofile), or the next word is. Long
// options, operands and everything after -- are left as they are.
func splitShort(args []Word, takes string) []Word {
	out := make([]Word, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if v == "--" {
			return append(out, args[i:]...)
		}
		if a.Dynamic || len(v) < 3 || v[0] != '-' || v[1] == '-' {
			out = append(out, a)
			continue
		}
		for j := 1; j < len(v); j++ {
			if !strings.ContainsRune(takes, rune(v[j])) {
				out = append(out, Word{Raw: "-" + v[j:j+1], Value: "-" + v[j:j+1]})
				continue
			}
			if rest := v[j+1:]; rest != "" {
				out = append(out, Word{Raw: "-" + v[j:], Value: "-" + v[j:]})
			} else {
				out = append(out, Word{Raw: "-" + v[j:j+1], Value: "-" + v[j:j+1]})
				if i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
			}
			break
		}
	}
	return out
}

// shortSplit takes a command's option clusters apart when its table is known.
func shortSplit(name string, args []Word) []Word {
	if takes, ok := shortValues[name]; ok {
		return splitShort(args, takes)
	}
	return args
}

// nameLists are the options that take the names of the files a command
// reads from a list file (or standard input): which files is known only
// when it runs (red team 10b, finding 5: printf '.\145nv' > l; file -m m
// -f l printed .env through a magic file's %s).
var nameLists = map[string]struct {
	short string
	long  []string
}{
	"file": {"f", []string{"--files-from"}}, "tar": {"T", []string{"--files-from"}},
	"rsync": {"", []string{"--files-from", "--include-from"}}, "zip": {"@", []string{"--names-stdin"}},
	"cpio": {"oip", nil}, "bsdtar": {"T", []string{"--files-from"}}, "7z": {"", nil},
}

// nameListOption returns the option of a command that reads file names
// from a list.
func nameListOption(v view) (string, bool) {
	nl, ok := nameLists[v.name]
	if !ok {
		return "", false
	}
	if v.name == "cpio" { // cpio -o/-p take the names on standard input
		for _, a := range splitShort(v.args, "") {
			if len(a.Value) == 2 && a.Value[0] == '-' && strings.ContainsRune(nl.short, rune(a.Value[1])) && a.Value != "-i" {
				return a.Value, true
			}
		}
		return "", false
	}
	for _, a := range shortSplit(v.name, v.args) {
		val := a.Value
		if val == "--" {
			break
		}
		if len(val) >= 2 && val[0] == '-' && val[1] != '-' && strings.ContainsRune(nl.short, rune(val[1])) {
			return val, true
		}
		name, _, _ := strings.Cut(val, "=")
		for _, l := range nl.long {
			if strings.HasPrefix(name, "--") && len(name) > 4 && strings.HasPrefix(l, name) {
				return val, true
			}
		}
	}
	return "", false
}

// findCopiers are the commands that, given find's {} as a source, put a
// file of the name find found where they copy, move or link it.
var findCopiers = setOf("cp", "mv", "install", "ln", "link", "rsync", "ditto", "gcp", "gmv")

// findNameSamples are names find's {} may stand for: every protected
// folder and file, besides the credential files.
func findNameSamples() []string {
	var out []string
	for n := range protectedDirs {
		out = append(out, n)
	}
	for n := range protectedNames {
		out = append(out, n)
	}
	out = append(out, ".github", ".github/workflows", ".claude/settings.json")
	sort.Strings(out)
	return out
}

// findNameTests returns the -name and -iname patterns of a find
// expression; all is false when some other test or an operator could let
// other names through (-o, !, -not, -path, -regex, a pattern computed).
func findNameTests(expr []Word) (pats []string, fold bool, all bool) {
	for i := 0; i < len(expr); i++ {
		switch v := expr[i].Value; v {
		case "-o", "-or", "!", "-not", ",":
			return nil, false, false
		case "-name", "-iname":
			if i+1 >= len(expr) || expr[i+1].Dynamic {
				return nil, false, false
			}
			pats = append(pats, expr[i+1].Value)
			fold = fold || v == "-iname"
			i++
		case "-exec", "-execdir", "-ok", "-okdir":
			for i++; i < len(expr) && expr[i].Value != ";" && expr[i].Value != "+"; i++ {
			}
		}
	}
	return pats, fold, len(pats) > 0
}

// findCopyHits: find … -exec cp -r {} DEST copies or moves whatever find
// finds; {} is any path under the search roots, so each protected name
// the expression's -name tests let through is judged in its place (red
// team 10b, finding 13: find kit -name .claude -exec cp -r {} . \; put
// kit's .claude, hooks and all, into the working directory).
func (b *bashCheck) findCopyHits(pt part) []hit {
	args := pt.view.args
	starts, i := findStarts(args)
	pats, fold, filtered := findNameTests(args[i:])
	for ; i < len(args); i++ {
		switch args[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		var words []Word
		for i++; i < len(args) && args[i].Value != ";" && args[i].Value != "+"; i++ {
			words = append(words, args[i])
		}
		if len(words) < 2 || words[0].Dynamic || !findCopiers[cmdName(words[0])] {
			continue
		}
		braces := false
		for _, w := range words[1:] {
			braces = braces || strings.Contains(w.Value, "{}")
		}
		if !braces {
			continue
		}
		for _, n := range findNameSamples() {
			if filtered && !nameMatchesAny(pats, path.Base(n), fold) {
				continue
			}
			for _, s := range starts {
				found := Word{Raw: s.Raw + "/" + n, Value: s.Value + "/" + n, Dynamic: s.Dynamic, Tilde: s.Tilde}
				inner := placeWord(words, found)
				if hs := b.floorOnly([]Command{{Args: inner, Text: joinValues(inner)}}, pt.cwds, 1); len(hs) > 0 {
					for j := range hs {
						hs[j].detail = "find -exec " + joinValues(words) + " with {} = " + found.Raw + ": " + hs[j].detail
					}
					return hs
				}
			}
		}
	}
	return nil
}

// placeWord replaces {} in words by found.
func placeWord(words []Word, found Word) []Word {
	out := make([]Word, len(words))
	for j, w := range words {
		if strings.Contains(w.Value, "{}") {
			w = Word{Raw: strings.ReplaceAll(w.Raw, "{}", found.Raw), Value: strings.ReplaceAll(w.Value, "{}", found.Value),
				Dynamic: w.Dynamic || found.Dynamic, Tilde: found.Tilde && strings.HasPrefix(w.Value, "{}")}
		}
		out[j] = w
	}
	return out
}

// nameMatchesAny reports a name one of find's -name patterns matches.
func nameMatchesAny(pats []string, name string, fold bool) bool {
	for _, p := range pats {
		if fold {
			p, name = strings.ToLower(p), strings.ToLower(name)
		}
		if ok, err := path.Match(p, name); ok || err != nil {
			return true
		}
	}
	return false
}

// npmNetOpts are the options of npm, pnpm, yarn and bun that choose where
// the package manager connects or whom it trusts: registries (also per
// scope, --@scope:registry=, and per host, --//host/:_authToken=),
// proxies, CAs and client keys.
var npmNetOpts = []string{"--registry", "--proxy", "--https-proxy", "--http-proxy", "--noproxy", "--ca", "--cafile",
	"--cert", "--key", "--strict-ssl", "--replace-registry-host", "--always-auth", "--_auth", "--_authToken",
	"--npmRegistryServer", "--httpProxy", "--httpsProxy", "--caFilePath", "--enableStrictSsl", "--unsafeHttpWhitelist"}

// npmURLHits: a package manager's option that names a registry, proxy or
// any URL sends the names of the project's packages (and a proxy's
// user:password) to that host (red team 10b, finding 12: npm outdated
// --@x:registry=http://…/DATA and --proxy=http://DATA:pw@host).
func npmURLHits(v view) []hit {
	switch v.name {
	case "npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx":
	default:
		return nil
	}
	for i, a := range v.args {
		val := a.Value
		if val == "--" {
			break
		}
		if !strings.HasPrefix(val, "--") {
			continue
		}
		name, value, eq := strings.Cut(val, "=")
		if !eq && i+1 < len(v.args) {
			value = v.args[i+1].Value
		}
		risky := strings.HasPrefix(name, "--@") || strings.HasPrefix(name, "--//") || strings.Contains(value, "://")
		for _, o := range npmNetOpts {
			if strings.EqualFold(name, o) || len(name) >= 5 && strings.HasPrefix(o, name) {
				risky = true
			}
		}
		if risky {
			return []hit{{id: FloorURLData, detail: v.name + " " + val + " makes it connect to a host the command line names (registry, proxy or CA), with the project's package names and any credentials in the address"}}
		}
	}
	return nil
}
