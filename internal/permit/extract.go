package permit

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// An archive or a patch names the files it writes in its content, not on
// the command line: tar xf kit.tar wrote .vscode/tasks.json for the
// eighth red team. The floor reads the archive or patch (tar, gzip and
// bzip2 tars, zip, unified, context and git diffs) and judges each file it
// would write as the command's own write; one it cannot read asks.

// maxArchiveScan bounds how much of an archive or patch is read.
const maxArchiveScan = 16 << 20

// maxMembers bounds how many members of an archive are judged one by one.
const maxMembers = 20000

// extractHits judges the files an extraction or a patch writes.
func (b *bashCheck) extractHits(pt part) []hit {
	v := pt.view
	name := v.name
	switch {
	case name == "tar" || name == "bsdtar" || name == "gtar":
		return b.tarHits(pt)
	case name == "unzip":
		return b.unzipHits(pt)
	case name == "patch" || name == "gpatch":
		return b.patchHits(pt)
	case name == "git" && parseGit(v.args).sub == "apply":
		return b.gitApplyHits(pt)
	case isPyModule(v.args, "zipfile") || isPyModule(v.args, "tarfile"):
		return b.pyArchiveHits(pt)
	}
	if why := opaqueExtract(v); why != "" {
		return []hit{{id: FloorProtectedFile, detail: why}}
	}
	return decompressHits(v, pt.cwds, b.env)
}

// opaqueExtract names an extraction whose archive the floor does not read
// (7z, rar, cpio, pax, ar, jar) and a decompression that takes the file's
// name from inside it (gzip -dN).
func opaqueExtract(v view) string {
	first := ""
	if len(v.args) > 0 {
		first = v.args[0].Value
	}
	_, opts := operands(v.args)
	switch v.name {
	case "dpkg-deb", "dpkg":
		for _, a := range v.args {
			switch a.Value {
			case "-x", "-X", "-R", "--extract", "--vextract", "--raw-extract", "--ctrl-tarfile", "-e", "--control":
				if a.Value == "--ctrl-tarfile" {
					continue
				}
				return v.name + " " + a.Value + " writes the files the package holds, which the floor does not read"
			}
		}
	case "cabextract", "xar", "rpm2cpio", "lha", "arj", "unarj", "bsdunzip", "unar", "lsar":
		if v.name != "lsar" && v.name != "rpm2cpio" {
			return v.name + " writes the files the archive holds, which the floor does not read"
		}
	case "7z", "7za", "7zr", "unrar", "rar":
		if first == "x" || first == "e" {
			return v.name + " " + first + " writes the files the archive holds, which the floor does not read: they may be hooks, agent settings or links out of the folder"
		}
	case "cpio", "bsdcpio":
		if hasShort(opts, "i") || hasLong(opts, "--extract") {
			return v.name + " -i writes the files the archive holds, which the floor does not read"
		}
	case "pax":
		if hasShort(opts, "r") && !hasShort(opts, "w") {
			return "pax -r writes the files the archive holds, which the floor does not read"
		}
	case "ar", "jar":
		if strings.Trim(first, "-") != "" && strings.ContainsAny(strings.TrimPrefix(first, "-"), "x") {
			return v.name + " " + first + " writes the files the archive holds, which the floor does not read"
		}
	case "gzip", "gunzip", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd", "lz4", "unlz4":
		if hasShort(opts, "N") || hasLong(opts, "--name") {
			return v.name + " --name writes the file under the name stored in the archive, which the floor does not read"
		}
	}
	return ""
}

// tarArgs is what a tar command line says about an extraction.
type tarArgs struct {
	extract bool
	create  bool
	file    *Word  // -f FILE (nil: standard input)
	dirs    []Word // -C DIR
	top     *Word  // --one-top-level[=DIR]
	strip   int
	risky   string // an option that places members anywhere (-P, --transform)
	members []Word // the operands: files to archive, or members to extract
	// incremental: -G, -g FILE, --incremental, --listed-incremental: an
	// extraction deletes what the archive's snapshot does not hold.
	incremental bool
	removeFiles bool // --remove-files: the archived files are deleted
	forceLocal  bool // --force-local: a file name with a colon is a file
}

// tarShortValues are tar's one-letter options that take a value.
const tarShortValues = "fCTXbLNVgKHIF"

// tarLongValues are the long options whose value may be the next word.
var tarLongValues = setOf("--file", "--directory", "--files-from", "--exclude-from", "--transform", "--xform",
	"--strip-components", "--blocking-factor", "--newer", "--after-date", "--label", "--listed-incremental",
	"--starting-file", "--format", "--owner", "--group", "--mode", "--use-compress-program", "--to-command",
	"--info-script", "--new-volume-script", "--exclude", "--tape-length", "--volno-file", "--rsh-command",
	"--checkpoint-action", "--index-file", "--newer-mtime", "--record-size", "--suffix", "--mtime", "--warning",
	"--quoting-style", "--pax-option", "--hole-detection", "--sparse-version", "--owner-map", "--group-map")

// parseTar reads tar's three option styles: a first word of bundled
// letters (tar xzf k.tar), clusters (-xzf k.tar) and long options.
func parseTar(args []Word) tarArgs {
	var t tarArgs
	take := func(letter byte, val Word) {
		switch letter {
		case 'x':
			t.extract = true
		case 'c', 'r', 'u', 'A':
			t.create = true
		case 'f':
			w := val
			t.file = &w
		case 'C':
			t.dirs = append(t.dirs, val)
		case 'P':
			t.risky = "-P (absolute member names)"
		case 'G', 'g':
			t.incremental = true
		case 's':
			t.risky = "-s (renamed members)"
		}
	}
	next := 0
	value := func() Word {
		if next < len(args) {
			next++
			return args[next-1]
		}
		return unknownWord
	}
	for next < len(args) {
		a := args[next]
		next++
		s := a.Value
		switch {
		case a.Dynamic:
			t.risky = a.Raw + " (known only when it runs)"
		case next == 1 && !strings.HasPrefix(s, "-"): // bundled letters, values in the following words
			for i := 0; i < len(s); i++ {
				var val Word
				if strings.IndexByte(tarShortValues, s[i]) >= 0 {
					val = value()
				}
				take(s[i], val)
			}
		case strings.HasPrefix(s, "--"):
			n, val, eq := strings.Cut(s, "=")
			if !eq && tarLongValues[n] {
				w := value()
				val, eq = w.Value, true
				if w.Dynamic {
					t.risky = n + " " + w.Raw + " (known only when it runs)"
				}
			}
			switch n {
			case "--extract", "--get":
				t.extract = true
			case "--create", "--append", "--update", "--concatenate", "--catenate":
				t.create = true
			case "--file":
				w := pathWord(val)
				t.file = &w
			case "--directory":
				t.dirs = append(t.dirs, pathWord(val))
			case "--strip-components":
				t.strip, _ = strconv.Atoi(val)
			case "--absolute-names", "--transform", "--xform":
				t.risky = s
			case "--incremental", "--listed-incremental":
				t.incremental = true
			case "--remove-files":
				t.removeFiles = true
			case "--force-local":
				t.forceLocal = true
			case "--one-top-level":
				w := pathWord(val)
				t.top = &w
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			for i := 1; i < len(s); i++ {
				if strings.IndexByte(tarShortValues, s[i]) < 0 {
					take(s[i], Word{})
					continue
				}
				if i+1 < len(s) {
					take(s[i], pathWord(s[i+1:]))
				} else {
					take(s[i], value())
				}
				break
			}
		default:
			t.members = append(t.members, a)
		}
	}
	return t
}

// tarHits judges the members tar x writes, and what tar deletes or
// reaches on another machine.
func (b *bashCheck) tarHits(pt part) []hit {
	t := parseTar(pt.view.args)
	by := pt.view.name + " " + joinValues(pt.view.args)
	if t.file != nil && !t.forceLocal && !t.file.Dynamic && isRemoteSpec(t.file.Value) {
		return []hit{{id: FloorURLData, detail: by + ": the archive " + t.file.Raw + " is on another machine, reached through rsh"}}
	}
	if t.removeFiles {
		if out := targetsOutside(t.members, pt.cwds, b.env, true); len(out) > 0 {
			return []hit{{id: FloorDeleteRecursiveOutside, detail: by + " deletes " + out[0] + " once archived"}}
		}
	}
	if !t.extract {
		return nil
	}
	if t.incremental {
		return []hit{{id: FloorGitDiscard, risk: Critical, detail: by + ": an incremental extraction deletes every file of the folders it extracts into that the archive's snapshot does not list, uncommitted work and .git included"}}
	}
	if t.risky != "" {
		return []hit{{id: FloorProtectedFile, detail: by + " places members where " + t.risky + " says: the files it writes are not known here"}}
	}
	body, why := b.contentOf(pt, t.file)
	if why != "" {
		return []hit{{id: FloorProtectedFile, detail: by + " writes the files of an archive " + why}}
	}
	members, why := archiveMembers(body)
	if why != "" {
		return []hit{{id: FloorProtectedFile, detail: by + ": " + why}}
	}
	bases, ok := b.extractBases(pt, t.dirs)
	if !ok {
		return []hit{{id: FloorProtectedFile, detail: by + " writes into a folder known only when it runs"}}
	}
	if t.top != nil {
		top := t.top.Value
		if top == "" && t.file != nil {
			top = strings.SplitN(path.Base(t.file.Value), ".", 2)[0]
		}
		for i := range bases {
			bases[i] = path.Join(bases[i], top)
		}
	}
	return b.memberHits(by, members, bases, t.strip, pt.cwds)
}

// unzipHits judges the members unzip writes.
func (b *bashCheck) unzipHits(pt part) []hit {
	var archive *Word
	var dirs []Word
	junk := false
	args := pt.view.args
	for i := 0; i < len(args); i++ {
		s := args[i].Value
		switch {
		case s == "-x":
			i = len(args) // the rest are exclusions
		case s == "-d" && i+1 < len(args):
			dirs = append(dirs, args[i+1])
			i++
		case strings.HasPrefix(s, "-d") && len(s) > 2:
			dirs = append(dirs, pathWord(s[2:]))
		case s == "-P" || s == "-ddd":
			i++
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if strings.ContainsAny(s[1:], "lvtzZpc") {
				return nil // lists, tests or prints: writes nothing
			}
			junk = junk || strings.Contains(s[1:], "j")
		case archive == nil:
			w := args[i]
			archive = &w
		}
	}
	by := "unzip " + joinValues(args)
	if archive == nil {
		return nil
	}
	if abs, ok := pt.cwds.resolve(*archive); ok && len(abs) > 0 && !strings.HasSuffix(strings.ToLower(archive.Value), ".zip") {
		if _, err := b.env.FS.Lstat(abs[0]); err != nil {
			w := pathWord(archive.Value + ".zip") // unzip k finds k.zip
			archive = &w
		}
	}
	body, why := b.contentOf(pt, archive)
	if why != "" {
		return []hit{{id: FloorProtectedFile, detail: by + " writes the files of an archive " + why}}
	}
	members, why := archiveMembers(body)
	if why != "" {
		return []hit{{id: FloorProtectedFile, detail: by + ": " + why}}
	}
	if junk {
		for i := range members {
			members[i].name = path.Base(members[i].name)
		}
	}
	bases, ok := b.extractBases(pt, dirs)
	if !ok {
		return []hit{{id: FloorProtectedFile, detail: by + " writes into a folder known only when it runs"}}
	}
	return b.memberHits(by, members, bases, 0, pt.cwds)
}

// pyArchiveHits judges python -m zipfile -e ARCHIVE DIR and python -m
// tarfile -e ARCHIVE [DIR].
func (b *bashCheck) pyArchiveHits(pt part) []hit {
	args := pt.view.args
	for i, a := range args {
		if a.Value != "-e" && a.Value != "--extract" {
			continue
		}
		by := pt.view.name + " " + joinValues(args)
		if i+1 >= len(args) {
			return nil
		}
		archive := args[i+1]
		var dirs []Word
		if i+2 < len(args) {
			dirs = append(dirs, args[i+2])
		}
		body, why := b.contentOf(pt, &archive)
		if why != "" {
			return []hit{{id: FloorProtectedFile, detail: by + " writes the files of an archive " + why}}
		}
		members, why := archiveMembers(body)
		if why != "" {
			return []hit{{id: FloorProtectedFile, detail: by + ": " + why}}
		}
		bases, ok := b.extractBases(pt, dirs)
		if !ok {
			return []hit{{id: FloorProtectedFile, detail: by + " writes into a folder known only when it runs"}}
		}
		return b.memberHits(by, members, bases, 0, pt.cwds)
	}
	return nil
}

// contentOf reads the archive or patch a command takes: the file named,
// else its standard input when a redirection or here-document gives it.
// why says what is not known when it cannot.
func (b *bashCheck) contentOf(pt part, file *Word) ([]byte, string) {
	if file == nil || file.Value == "-" {
		for _, r := range pt.cmd.Redirects {
			switch {
			case r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<":
				if r.Target.Dynamic || strings.ContainsAny(r.Body, "$`") && r.Op == "<<<" {
					return nil, "given on standard input, known only when it runs"
				}
				return []byte(r.Body), ""
			case r.Op == "<" && (r.FD == "" || r.FD == "0"):
				file = &r.Target
			}
		}
		if file == nil || file.Value == "-" {
			return nil, "read from standard input, known only when it runs"
		}
	}
	if file.Dynamic || b.env.FS == nil {
		return nil, file.Raw + ", known only when it runs"
	}
	abs, ok := pt.cwds.resolve(*file)
	if !ok || len(abs) != 1 {
		return nil, file.Raw + ", known only when it runs"
	}
	if b.writtenHere(abs[0], pt) {
		return nil, file.Raw + ", which the same command line writes first"
	}
	body, err := b.env.readHead(b.env.realPath(abs[0]), maxArchiveScan+1)
	if err != nil {
		return nil, file.Raw + ", which could not be read here (" + err.Error() + ")"
	}
	if len(body) > maxArchiveScan {
		return nil, file.Raw + ", too large to look through here"
	}
	return body, ""
}

// writtenHere reports a file another part of the command line writes (git
// diff > p && git apply -R p): what the floor reads now is not what runs.
func (b *bashCheck) writtenHere(abs string, self part) bool {
	for _, pt := range b.parts {
		if pt.cmd.Text == self.cmd.Text {
			continue
		}
		targets := append([]Word{}, pt.view.writes...)
		for _, r := range pt.cmd.Redirects {
			switch r.Op {
			case ">", ">>", ">|", "<>", "&>", "&>>":
				targets = append(targets, r.Target)
			}
		}
		if writers[pt.view.name] {
			ops, _ := operands(pt.view.args)
			targets = append(targets, ops...)
		}
		for _, t := range targets {
			if t.Dynamic {
				return true
			}
			if got, ok := pt.cwds.resolve(t); !ok {
				return true
			} else {
				for _, g := range got {
					if g == abs {
						return true
					}
				}
			}
		}
	}
	return false
}

// writers are commands whose operands may be files they write.
var writers = setOf("cp", "mv", "install", "ln", "tee", "dd", "curl", "wget", "touch", "sed", "truncate", "rsync", "sponge")

// member is one file an archive or patch writes.
type member struct {
	name string
	link string // a symbolic or hard link's target
}

// archiveMembers lists a tar (plain, gzip or bzip2) or zip archive.
func archiveMembers(body []byte) ([]member, string) {
	var r io.Reader = bytes.NewReader(body)
	switch {
	case bytes.HasPrefix(body, []byte("PK\x03\x04")) || bytes.HasPrefix(body, []byte("PK\x05\x06")):
		return zipMembers(body)
	case bytes.HasPrefix(body, []byte{0x1f, 0x8b}):
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, "the archive could not be read here (" + err.Error() + ")"
		}
		r = io.LimitReader(z, 4*maxArchiveScan)
	case bytes.HasPrefix(body, []byte("BZh")):
		r = io.LimitReader(bzip2.NewReader(r), 4*maxArchiveScan)
	case bytes.HasPrefix(body, []byte{0xfd, '7', 'z', 'X', 'Z', 0}) || bytes.HasPrefix(body, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return nil, "the archive is compressed in a way the floor does not read (xz, zstd): the files it writes are not known here"
	}
	tr := tar.NewReader(r)
	var out []member
	for len(out) < maxMembers {
		h, err := tr.Next()
		if err == io.EOF {
			return out, ""
		}
		if err != nil {
			return nil, "the archive could not be read here (" + err.Error() + ")"
		}
		m := member{name: h.Name}
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
			m.link = h.Linkname
		}
		out = append(out, m)
	}
	return nil, "the archive holds too many files to judge one by one"
}

func zipMembers(body []byte) ([]member, string) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, "the archive could not be read here (" + err.Error() + ")"
	}
	if len(zr.File) > maxMembers {
		return nil, "the archive holds too many files to judge one by one"
	}
	var out []member
	for _, f := range zr.File {
		m := member{name: f.Name}
		if f.Mode()&fs.ModeSymlink != 0 {
			m.link = "(a link)"
		}
		out = append(out, m)
	}
	return out, ""
}

// extractBases are the folders members land under: each -C/-d folder,
// else where the command runs.
func (b *bashCheck) extractBases(pt part, dirs []Word) ([]string, bool) {
	if len(dirs) == 0 {
		if pt.cwds.unknown {
			return nil, false
		}
		return append([]string(nil), pt.cwds.dirs...), true
	}
	var out []string
	for _, d := range dirs {
		abs, ok := pt.cwds.resolve(d)
		if !ok {
			return nil, false
		}
		out = append(out, abs...)
	}
	return out, true
}

// memberHits judges each member as a write under each base.
func (b *bashCheck) memberHits(by string, members []member, bases []string, strip int, cwds cwdSet) []hit {
	for _, m := range members {
		name := strings.TrimLeft(m.name, "/")
		segs := strings.Split(name, "/")
		if strip > 0 {
			if len(segs) <= strip {
				continue
			}
			segs = segs[strip:]
		}
		name = strings.Join(segs, "/")
		if name == "" || name == "." {
			continue
		}
		for _, s := range segs {
			if s == ".." {
				return []hit{{id: FloorWriteOutside, detail: by + " holds " + m.name + ", which climbs out of the folder it extracts into"}}
			}
		}
		for _, base := range bases {
			abs := path.Join(base, name)
			if m.link != "" {
				return []hit{{id: FloorProtectedFile, detail: by + " makes " + abs + " a link to " + m.link + ": whatever writes through it later writes where the link points"}}
			}
			if hs := writeHits(Word{Raw: m.name, Value: abs}, cwds, b.env, by); hs != nil {
				return hs
			}
		}
	}
	return nil
}

// patchHits judges the files patch writes: the file named on its command
// line, -o and -r, and every file the patch names (with -p as given, and
// every strip level without it: patch then guesses).
func (b *bashCheck) patchHits(pt part) []hit {
	args := pt.view.args
	var input *Word
	var dirs, outs, ops []Word
	strip := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		s := a.Value
		val := func(short, long string) (Word, bool) {
			switch {
			case s == short || s == long:
				if i+1 < len(args) {
					i++
					return args[i], true
				}
				return unknownWord, true
			case strings.HasPrefix(s, long+"="):
				return pathWord(s[len(long)+1:]), true
			case len(s) > 2 && strings.HasPrefix(s, short):
				return pathWord(s[2:]), true
			}
			return Word{}, false
		}
		if w, ok := val("-i", "--input"); ok {
			input = &w
			continue
		}
		if w, ok := val("-d", "--directory"); ok {
			dirs = append(dirs, w)
			continue
		}
		if w, ok := val("-o", "--output"); ok {
			outs = append(outs, w)
			continue
		}
		if w, ok := val("-r", "--reject-file"); ok {
			outs = append(outs, w)
			continue
		}
		if w, ok := val("-p", "--strip"); ok {
			if n, err := strconv.Atoi(w.Value); err == nil {
				strip = n
			}
			continue
		}
		// Backups go where these say: patch -b -B .git/hooks/ moved the
		// file it patched into the hooks for the ninth red team; a suffix
		// only when it names a folder.
		if w, ok := val("-z", "--suffix"); ok {
			if strings.Contains(w.Value, "/") || w.Dynamic {
				outs = append(outs, unknownWord)
			}
			continue
		}
		taken := false
		for _, o := range [][2]string{{"-B", "--prefix"}, {"-Y", "--basename-prefix"}, {"-D", "--ifdef"}, {"-F", "--fuzz"}, {"-V", "--version-control"}} {
			if _, ok := val(o[0], o[1]); ok {
				if o[0] == "-B" || o[0] == "-Y" {
					outs = append(outs, unknownWord)
				}
				taken = true
				break
			}
		}
		if taken {
			continue
		}
		switch {
		case a.Dynamic:
			ops = append(ops, a)
		case strings.HasPrefix(s, "-") && len(s) > 1:
			if s == "--dry-run" || s == "-C" || s == "--check" {
				return nil
			}
		default:
			ops = append(ops, a)
		}
	}
	by := "patch " + joinValues(args)
	if len(ops) > 1 && input == nil {
		input = &ops[1]
	}
	var hs []hit
	if len(ops) > 0 {
		outs = append(outs, ops[0]) // patch FILE: the file it changes, whatever the patch says
	}
	for _, o := range outs {
		if o.Value == "-" {
			continue
		}
		hs = append(hs, writeHits(o, pt.cwds, b.env, by)...)
	}
	if len(hs) > 0 || len(ops) > 0 {
		return hs
	}
	return b.patchTextHits(pt, by, input, dirs, strip)
}

// gitApplyHits judges the files git apply writes (git apply --cached and
// --check write none in the working tree).
func (b *bashCheck) gitApplyHits(pt part) []hit {
	g := parseGit(pt.view.args)
	ops, opts := operands(g.args)
	if hasLong(opts, "--check", "--stat", "--numstat", "--summary", "--cached") {
		return nil
	}
	by := "git apply " + joinValues(g.args)
	strip := 1
	var dirs []Word
	for _, o := range opts {
		switch {
		case strings.HasPrefix(o, "-p"):
			if n, err := strconv.Atoi(o[2:]); err == nil {
				strip = n
			}
		case strings.HasPrefix(o, "--directory="):
			dirs = append(dirs, pathWord(strings.TrimPrefix(o, "--directory=")))
		case o == "--unsafe-paths":
			return []hit{{id: FloorWriteOutside, detail: by + " writes wherever the patch says, outside the working tree too"}}
		}
	}
	if len(ops) == 0 {
		return b.patchTextHits(pt, by, nil, dirs, strip)
	}
	for _, o := range ops {
		if hs := b.patchTextHits(pt, by, &o, dirs, strip); hs != nil {
			return hs
		}
	}
	return nil
}

// patchTextHits reads a patch and judges the files it names.
func (b *bashCheck) patchTextHits(pt part, by string, file *Word, dirs []Word, strip int) []hit {
	body, why := b.contentOf(pt, file)
	if why != "" {
		return []hit{{id: FloorProtectedFile, detail: by + " writes the files a patch names, " + why}}
	}
	names, link := patchTargets(string(body))
	if link != "" {
		return []hit{{id: FloorProtectedFile, detail: by + " makes " + link + " a symbolic link: whatever writes through it later writes where it points"}}
	}
	bases, ok := b.extractBases(pt, dirs)
	if !ok {
		return []hit{{id: FloorProtectedFile, detail: by + " writes into a folder known only when it runs"}}
	}
	if b.env.Workdir != "" {
		bases = append(bases, b.env.Workdir) // git apply names paths from the top of the working tree
	}
	var members []member
	for _, n := range names {
		segs := strings.Split(strings.TrimLeft(n, "/"), "/")
		if strings.HasPrefix(n, "/") && strip <= 0 {
			return []hit{{id: FloorWriteOutside, detail: by + " writes " + n}}
		}
		lo, hi := strip, strip
		if strip < 0 {
			lo, hi = 0, len(segs)-1 // patch without -p: any strip level
		}
		for k := lo; k <= hi && k < len(segs); k++ {
			members = append(members, member{name: strings.Join(segs[k:], "/")})
		}
	}
	return b.memberHits(by, members, bases, 0, pt.cwds)
}

// patchTargets returns the file names a patch's headers give (unified,
// context and git diffs), and a file it makes a symbolic link.
func patchTargets(body string) (names []string, link string) {
	last := ""
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, "\r")
		var n string
		switch {
		case strings.HasPrefix(line, "diff --git "):
			for _, f := range gitDiffNames(line[len("diff --git "):]) {
				names = append(names, f)
				last = f
			}
			continue
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "Index: "):
			n = line[4:]
			if strings.HasPrefix(line, "Index: ") {
				n = line[7:]
			}
		case strings.HasPrefix(line, "*** ") && !strings.HasSuffix(line, "****"):
			n = line[4:]
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			n = line[strings.Index(line, " to ")+4:]
		case strings.HasPrefix(line, "new file mode 120000"), strings.HasPrefix(line, "new mode 120000"):
			link = last
			if link == "" {
				link = "a file"
			}
			continue
		default:
			continue
		}
		if i := strings.IndexByte(n, '\t'); i >= 0 {
			n = n[:i] // the date after a tab
		}
		n = unquoteGitName(strings.TrimSpace(n))
		if n == "" || n == "/dev/null" {
			continue
		}
		names = append(names, n)
		last = n
	}
	return names, link
}

// gitDiffNames splits "a/x b/y" (either may be quoted) into its two names.
func gitDiffNames(s string) []string {
	var out []string
	for s != "" && len(out) < 2 {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "\"") {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return append(out, s)
			}
			out = append(out, unquoteGitName(q))
			s = s[len(q):]
			continue
		}
		if len(out) == 0 {
			// "a/x b/y" with unquoted names: split at " b/" when it is there
			if i := strings.Index(s, " b/"); i >= 0 {
				out = append(out, s[:i])
				s = s[i+1:]
				continue
			}
		}
		out = append(out, s)
		s = ""
	}
	return out
}

// unquoteGitName undoes git's C-style quoting of a path ("a/\303\251").
func unquoteGitName(n string) string {
	if len(n) >= 2 && n[0] == '"' {
		if u, err := strconv.Unquote(n); err == nil {
			return u
		}
	}
	return n
}

// decompressors are the commands that write a file decompressed from
// another, and the option that makes the compressors do it.
var decompressors = map[string]bool{"gunzip": true, "unxz": true, "bunzip2": true, "unzstd": true, "unlz4": true,
	"unlzma": true, "uncompress": true, "unpigz": true}
var compressors = map[string]bool{"gzip": true, "xz": true, "bzip2": true, "zstd": true, "lz4": true, "lzma": true,
	"brotli": true, "pigz": true, "pbzip2": true, "lzip": true, "compress": true}

// compressedSuffixes map a compressed file's ending to what the
// decompressed one ends with.
var compressedSuffixes = []struct{ from, to string }{{".tgz", ".tar"}, {".taz", ".tar"}, {".txz", ".tar"},
	{".tbz2", ".tar"}, {".tbz", ".tar"}, {".gz", ""}, {".z", ""}, {".Z", ""}, {".xz", ""}, {".lzma", ""},
	{".bz2", ""}, {".zst", ""}, {".lz4", ""}, {".br", ""}, {".lz", ""}}

// decompressHits judges the files a decompression writes: the input's
// name without its ending beside it (gunzip .envrc.gz writes .envrc), or
// the name -o, --output-dir-flat or a second operand gives (zstd -d
// --output-dir-flat=.git/hooks wrote a hook for the ninth red team).
func decompressHits(v view, cwds cwdSet, env Env) []hit {
	ops, opts := operands(v.args)
	if !decompressors[v.name] && !(compressors[v.name] && (hasShort(opts, "d") || hasLong(opts, "--decompress", "--uncompress"))) {
		return nil
	}
	if hasShort(opts, "ctl") || hasLong(opts, "--stdout", "--to-stdout", "--test", "--list") {
		return nil // to standard output, or nothing written
	}
	by := v.name + " " + joinValues(v.args)
	suffix, outDir := "", ""
	var outs []Word
	args := v.args
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i].Value
			}
			return ""
		}
		switch {
		case a == "-S" || a == "--suffix":
			suffix = val()
		case strings.HasPrefix(a, "--suffix="):
			suffix = strings.TrimPrefix(a, "--suffix=")
		case a == "-o" || a == "--output":
			outs = append(outs, pathWord(val()))
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "-o") && len(a) > 2 && v.name == "zstd":
			outs = append(outs, pathWord(strings.TrimPrefix(strings.TrimPrefix(a, "--output="), "-o")))
		case strings.HasPrefix(a, "--output-dir-flat") || strings.HasPrefix(a, "--output-dir-mirror"):
			if _, d, ok := strings.Cut(a, "="); ok {
				outDir = d
			} else {
				outDir = val()
			}
		}
	}
	if len(outs) == 0 && (v.name == "lz4" || v.name == "unlz4") && len(ops) == 2 {
		outs, ops = ops[1:], ops[:1]
	}
	for _, o := range ops {
		if o.Dynamic || o.Glob {
			return []hit{{id: FloorProtectedFile, detail: by + " writes files whose names are known only when it runs"}}
		}
		name := o.Value
		switch {
		case suffix != "":
			name = strings.TrimSuffix(name, suffix)
		default:
			for _, s := range compressedSuffixes {
				if strings.HasSuffix(name, s.from) {
					name = strings.TrimSuffix(name, s.from) + s.to
					break
				}
			}
		}
		if outDir != "" {
			name = path.Join(outDir, path.Base(name))
		}
		outs = append(outs, pathWord(name))
	}
	for _, w := range outs {
		if hs := writeHits(w, cwds, env, v.name); hs != nil {
			return hs
		}
	}
	return nil
}
