package permit

import (
	"regexp"
	"strings"
)

// A program written out on the command line (python3 -c, perl -e, node
// -e, an awk program) can write any file, and the floor cannot read every
// program. It reads what is plain: the quoted names in it, and awk's
// output redirections and commands. A program that hides its names
// (chr(46)+'git') is not found: an allow rule for an interpreter is an
// allow rule for any code, and the README says so.

// quotedName finds the quoted strings of a program (no escapes inside).
var quotedName = regexp.MustCompile(`"([^"\\\n]{1,300})"|'([^'\\\n]{1,300})'`)

// awkOutput finds awk's print and printf redirections and pipes.
var awkOutput = regexp.MustCompile(`\bprintf?\b[^;{}\n]*?(>>|>|\|&|\|)\s*("[^"]*"|[^\s;{}]+)`)

// inlineCodeHits judges the program an interpreter or awk is given inline.
func inlineCodeHits(v view, cwds cwdSet, env Env) []hit {
	code, ok := inlineCode(v)
	if !ok {
		return nil
	}
	by := v.name + " " + clip(code, 80)
	if isAwk(v.name) {
		if strings.Contains(code, "system(") || strings.Contains(code, "getline") && strings.Contains(code, "|") {
			return []hit{{id: FloorCodeExec, detail: by + ": the awk program runs commands"}}
		}
		for _, m := range awkOutput.FindAllStringSubmatch(code, -1) {
			if m[1] == "|" || m[1] == "|&" {
				return []hit{{id: FloorCodeExec, detail: by + ": the awk program pipes into a command"}}
			}
			target, quoted := strings.CutPrefix(m[2], `"`)
			if !quoted || strings.ContainsAny(target, "$`") {
				return []hit{{id: FloorWriteOutside, detail: by + ": the awk program writes a file whose name is known only when it runs"}}
			}
			if hs := writeHits(pathWord(strings.TrimSuffix(target, `"`)), cwds, env, v.name); hs != nil {
				return hs
			}
		}
	}
	for _, m := range quotedName.FindAllStringSubmatch(code, -1) {
		name := strings.TrimLeft(m[1]+m[2], "<>+|& ") // perl's and ruby's open modes: ">.git/hooks/x"
		if !strings.Contains(name, "/") && !strings.HasPrefix(name, ".") && !isCredential(name) {
			continue
		}
		if isCredential(name) {
			return []hit{{id: FloorCredentialRead, detail: by + " names " + name + ", a credential"}}
		}
		w := pathWord(name)
		abs, ok := cwds.resolve(w)
		if !ok {
			continue
		}
		for _, a := range abs {
			if isCredential(a) {
				return []hit{{id: FloorCredentialRead, detail: by + " names " + a + ", a credential"}}
			}
			if why, ok := env.protectedFile(a); ok && env.inside(a) {
				return []hit{{id: FloorProtectedFile, detail: by + " names " + a + " (" + why + "), which the program may write"}}
			}
		}
	}
	return nil
}

func isAwk(name string) bool {
	return name == "awk" || name == "gawk" || name == "mawk" || name == "nawk" || name == "busybox awk"
}

// inlineCode returns the program text an interpreter's code option or
// awk's first operand gives, when it is written out.
func inlineCode(v view) (string, bool) {
	args := v.args
	if isAwk(v.name) {
		for i := 0; i < len(args); i++ {
			a := args[i].Value
			switch {
			case a == "-f" || strings.HasPrefix(a, "--file") || a == "--":
				return "", false
			case a == "-v" || a == "-F" || a == "--assign" || a == "--field-separator":
				i++
			case strings.HasPrefix(a, "-") && len(a) > 1:
			default:
				return a, !args[i].Dynamic
			}
		}
		return "", false
	}
	key, ok := interpreter(v.name)
	if !ok {
		return "", false
	}
	for i, a := range args {
		for _, f := range codeFlags[key] {
			switch {
			case strings.EqualFold(a.Value, f) && i+1 < len(args):
				return args[i+1].Value, !args[i+1].Dynamic
			case len(f) == 2 && strings.HasPrefix(a.Value, f) && len(a.Value) > 2:
				return a.Value[2:], !a.Dynamic
			}
		}
	}
	return "", false
}

// clip shortens s to n bytes for a message.
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
