package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Secret files (bus.creds, bus.tls.key, a node's --nats-file) are hidden
// from every agent's sandbox by their FOLDER, not their name: a rotation
// (sed -i, cp and mv, an editor, nsc) writes the new secret under another
// name in the same folder first, then renames it over the old one, and an
// agent read it there, and under the real name before a hide by name was
// made again (red team 11a, finding 5). An empty tmpfs over the folder
// covers every name in it, now and later (SecretFolder: for a link, the
// target's folder too).
//
// So that folder must hold nothing an agent needs. The rule, kept simple:
// it holds only plain files that are not programs — no sub-folder (an
// agent's folder, the project's files, the state folder), no file with an
// execute bit (teamlead, an agent's CLI), none of teamlead's own files
// (the team file, permissions.yaml, answerers.yaml…) — and it is no
// agent's working folder. A folder of its own, such as configs/nats/,
// passes; the team file's folder or your home does not.

// SecretFolder is the folders a sandbox hides for the secret file path:
// the folder of its name and, when that is a link, the folder of the file
// it leads to (a rotation writes in either: `sed -i` replaces the link by
// a file beside it, an editor that follows links writes beside the
// target). Links in the folders' own paths are followed; none when the
// folder is not there.
func SecretFolder(path string) []string {
	if path == "" {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	var out []string
	if d, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		out = append(out, d)
	}
	if r, err := filepath.EvalSymlinks(path); err == nil && !slices.Contains(out, filepath.Dir(r)) {
		out = append(out, filepath.Dir(r))
	}
	return out
}

// SecretFolders are the folders of the team's secret files (bus.creds and
// bus.tls.key) that exist: every sandbox hides them whole.
func (t *Team) SecretFolders() []string {
	var out []string
	for _, f := range []string{t.Bus.Creds, t.Bus.TLS.Key} {
		for _, d := range SecretFolder(f) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// CheckSecretFolder says why a folder of the secret file path cannot be
// hidden from agents whole (see the rule above); nil when it can, or when
// it is not there (nothing to hide: whoever reads the file says so).
func (t *Team) CheckSecretFolder(path string) error {
	for _, dir := range SecretFolder(path) {
		if err := t.checkSecretFolder(path, dir); err != nil {
			return err
		}
	}
	return nil
}

// checkSecretFolder is CheckSecretFolder for one folder dir of path.
func (t *Team) checkSecretFolder(path, dir string) error {
	var holds []string
	for _, a := range t.Agents {
		if a.Dir != "" && sameDir(a.Dir, dir) {
			holds = append(holds, "is the working folder of agent "+a.Name)
		}
	}
	for _, f := range t.OwnFiles() {
		if sameDir(filepath.Dir(f), dir) {
			holds = append(holds, "holds "+filepath.Base(f)+" (teamlead's own file)")
			break
		}
	}
	entries, _ := os.ReadDir(dir)
	var folders, programs []string
	for _, e := range entries {
		st, err := os.Stat(filepath.Join(dir, e.Name())) // a link counts as what it leads to
		switch {
		case err != nil:
		case st.IsDir():
			folders = append(folders, e.Name())
		case st.Mode()&0o111 != 0:
			programs = append(programs, e.Name())
		}
	}
	if len(folders) > 0 {
		holds = append(holds, "holds "+plural(len(folders), "the folder ", "the folders ")+few(folders))
	}
	if len(programs) > 0 {
		holds = append(holds, "holds "+plural(len(programs), "the program ", "the programs ")+few(programs))
	}
	if len(holds) == 0 {
		return nil
	}
	return fmt.Errorf("%s: every agent's sandbox hides its folder %s whole (a rotation writes the new secret under another name there first), but that folder %s, which agents must see: put %s in a folder of its own that holds only such secrets, such as %s",
		path, dir, strings.Join(holds, " and "), filepath.Base(path), filepath.Join(dir, "nats")+string(filepath.Separator))
}

// sameDir reports whether folders a and b are one, links followed.
func sameDir(a, b string) bool {
	if r, err := filepath.EvalSymlinks(a); err == nil {
		a = r
	}
	if r, err := filepath.EvalSymlinks(b); err == nil {
		b = r
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// plural is one for n == 1, else more.
func plural(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}

// few names the first three of names, and how many more.
func few(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}
