package guard

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellStartup are the start-up files of startupFiles a shell runs as
// code, whose . and source lines name more files it runs.
var shellStartup = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc",
	".xprofile", ".xsessionrc",
}

// Bounds of the reading of start-up files: a file's first bytes, how many
// files in all, how many of one folder a loop sources, and how deep the
// sourcing is followed (the start-up file, what it sources, what that
// sources).
const (
	maxSourcedBytes = 256 << 10
	maxSourcedFiles = 64
	maxSourcedInDir = 32
	maxSourcedDepth = 2
)

// sourcedBy returns the files and folders the shell start-up files among
// files source, followed maxSourcedDepth deep: the path of each . or
// source command (\. too, as nvm's installer writes it) and the folder of
// each for loop's DIR/* (~/.bashrc.d/*.sh), where the path is spelt with
// ~, $HOME, ${HOME}, a variable the file set before (NVM_DIR="$HOME/.nvm")
// or absolutely. A .bashrc is read-only to agents, but what it sources
// was not: an agent's line in ~/.bash_aliases, ~/.cargo/env or
// ~/.nvm/nvm.sh ran at the human's next shell (red team 16a, finding 4).
// Paths that stay unknown ($f, $(cmd)) are left out.
func sourcedBy(home string, files []string) []string {
	var out []string
	seen := map[string]bool{}
	read := 0
	level := files
	for depth := 0; depth < maxSourcedDepth && len(level) > 0; depth++ {
		var next []string
		for _, f := range level {
			if seen[f] || read >= maxSourcedFiles {
				continue
			}
			seen[f] = true
			src, err := readHead(f)
			if err != nil {
				continue
			}
			read++
			paths, dirs := sourcedIn(src, home)
			for _, p := range paths {
				out = append(out, p)
				next = append(next, p)
			}
			for _, d := range dirs {
				out = append(out, d)
				entries, _ := os.ReadDir(d)
				for i, e := range entries {
					if i == maxSourcedInDir {
						break
					}
					if e.Type().IsRegular() {
						next = append(next, filepath.Join(d, e.Name()))
					}
				}
			}
		}
		level = next
	}
	return out
}

// readHead returns the first maxSourcedBytes of a regular file.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, os.ErrInvalid
	}
	return io.ReadAll(io.LimitReader(f, maxSourcedBytes))
}

// sourcedIn returns the paths src's . and source commands name and the
// folders its for loops source from. A file bash cannot parse whole (a
// zsh one) is parsed line by line, what parses counted.
func sourcedIn(src []byte, home string) (paths, dirs []string) {
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	vars := map[string]string{"HOME": home}
	look := func(node syntax.Node) {
		syntax.Walk(node, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.DeclClause:
				assign(vars, n.Args, home)
			case *syntax.CallExpr:
				if len(n.Args) == 0 {
					assign(vars, n.Assigns, home)
				} else if len(n.Args) > 1 && isSourceCommand(n.Args[0]) {
					if p, ok := wordPath(n.Args[1], vars, home); ok && !hasGlob(p) {
						paths = append(paths, p)
					}
				}
			case *syntax.ForClause:
				if it, ok := n.Loop.(*syntax.WordIter); ok {
					for _, w := range it.Items {
						if p, ok := wordPath(w, vars, home); ok && hasGlob(p) {
							if d := globFolder(p); d != "" {
								dirs = append(dirs, d)
							}
						}
					}
				}
			}
			return true
		})
	}
	if f, err := parser.Parse(bytes.NewReader(src), ""); err == nil {
		look(f)
		return paths, dirs
	}
	for _, line := range strings.Split(string(src), "\n") {
		if f, err := parser.Parse(strings.NewReader(line), ""); err == nil {
			look(f)
		}
	}
	return paths, dirs
}

// isSourceCommand reports whether w is . or source (\. and quoted too).
func isSourceCommand(w *syntax.Word) bool {
	name := strings.NewReplacer(`\`, "", `"`, "", `'`, "").Replace(wordText(w))
	return name == "." || name == "source"
}

// wordText is w's source text, as written.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// assign records the values of as that are known paths.
func assign(vars map[string]string, as []*syntax.Assign, home string) {
	for _, a := range as {
		if a.Name == nil || a.Value == nil || a.Append {
			continue
		}
		if v, ok := wordPath(a.Value, vars, home); ok {
			vars[a.Name.Value] = v
		} else {
			delete(vars, a.Name.Value)
		}
	}
}

// wordPath is the absolute path w names, ~ and the variables of vars
// expanded (${V:-default} to the default when V is unknown), globs kept;
// false when it is not absolute or holds what cannot be known.
func wordPath(w *syntax.Word, vars map[string]string, home string) (string, bool) {
	var b strings.Builder
	var part func(p syntax.WordPart, first bool) bool
	part = func(p syntax.WordPart, first bool) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if first && (v == "~" || strings.HasPrefix(v, "~/")) {
				v = home + v[1:]
			}
			b.WriteString(strings.ReplaceAll(v, `\`, ""))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !part(q, false) { // no ~ between quotes
					return false
				}
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil {
				return false
			}
			v, known := vars[p.Param.Value]
			switch {
			case p.Exp == nil:
			case (p.Exp.Op.String() == ":-" || p.Exp.Op.String() == "-") && !known && p.Exp.Word != nil:
				d, ok := wordPath(p.Exp.Word, vars, home)
				if !ok {
					return false
				}
				v, known = d, true
			case p.Exp.Op.String() == ":-" || p.Exp.Op.String() == "-":
			default:
				return false
			}
			if !known {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
		return true
	}
	for i, p := range w.Parts {
		if !part(p, i == 0) {
			return "", false
		}
	}
	s := b.String()
	if !filepath.IsAbs(s) {
		return "", false
	}
	return filepath.Clean(s), true
}

func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// globFolder is the folder above the first glob of p (~/.bashrc.d for
// ~/.bashrc.d/*.sh); "" when the glob is in a folder's name.
func globFolder(p string) string {
	dir := filepath.Dir(p)
	if hasGlob(dir) || dir == "/" {
		return ""
	}
	return dir
}
