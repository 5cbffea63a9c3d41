package permit

import (
	"errors"
	"strings"
)

// handled are the commands the floor judges by name; for any other
// command it looks for a dangerous command among the arguments.
var handled = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "shred": true, "srm": true,
	"cp": true, "mv": true, "install": true, "ln": true, "link": true, "rsync": true, "ditto": true, "tee": true,
	"truncate": true, "dd": true, "chmod": true, "chown": true, "chgrp": true, "chattr": true,
	"setfacl": true, "chcon": true, "find": true, "kill": true, "eval": true, "source": true, ".": true,
	"ssh": true, "su": true, "watch": true}

// hits returns the floor entries one part runs into. depth counts the
// commands found inside an unknown command's arguments.
func (b *bashCheck) hits(pt part, depth int) []hit {
	if pt.err != nil {
		return []hit{splitErrHit(pt.err)}
	}
	if pt.bomb {
		return []hit{{id: FloorForkBomb, detail: "a function piping itself into itself"}}
	}
	v, cwds, env := pt.view, pt.cwds, b.env
	var hs []hit
	switch {
	case v.dynamicName && b.hasFetcher:
		hs = append(hs, hit{id: FloorPipeToShell, detail: "the command is computed at run time next to a download"})
	case v.dynamicName:
		hs = append(hs, hit{id: FloorDynamicCommand, detail: "the command word " + firstRaw(pt.cmd)})
	}
	if v.privileged != "" {
		hs = append(hs, hit{id: FloorPrivilege, detail: v.privileged})
	}
	switch v.name {
	case "rm", "rmdir", "unlink", "shred", "srm":
		hs = append(hs, deleteHits(v, cwds, env)...)
		hs = append(hs, wipeHits(v, cwds, env)...)
	case "cp", "mv", "install", "ln", "link", "rsync", "ditto":
		hs = append(hs, copyHits(v, cwds, env)...)
	case "tee", "truncate", "touch", "sed", "gsed", "perl", "dd", "mkdir", "sponge":
		hs = append(hs, fileWriteHits(v, cwds, env)...)
		hs = append(hs, bulkEmptyHits(v, cwds, env)...)
	case "chmod", "chown", "chgrp", "chattr", "setfacl", "chcon":
		hs = append(hs, chmodHits(v, cwds, env)...)
	case "tree":
		// -R with -H writes 00Tree.html into every folder it lists,
		// .git's hooks and refs among them (red team 19a, finding 6)
		_, opts := operands(v.args)
		if hasShort(opts, "R") && hasShort(opts, "H") {
			hs = append(hs, hit{id: FloorProtectedFile, detail: "tree -R -H writes 00Tree.html into every folder it lists, git's and the agent CLIs' among them"})
		}
	case "find":
		hs = append(hs, findDeleteHits(v, cwds, env)...)
		hs = append(hs, findEmptyHits(v, cwds, env)...)
		hs = append(hs, b.findCopyHits(pt)...)
	case "git":
		hs = append(hs, gitHits(parseGit(v.args))...)
	}
	switch {
	case isDiskTool(v):
		hs = append(hs, hit{id: FloorDiskTools, detail: v.name})
	case isPower(v):
		hs = append(hs, hit{id: FloorPower, detail: v.name})
	case isKillAll(v):
		hs = append(hs, hit{id: FloorKillAll, detail: v.name + " -1"})
	case setsClock(v):
		hs = append(hs, hit{id: FloorWriteSystem, detail: v.name + " " + joinValues(v.args) + " sets the machine's clock"})
	}
	if why, ok := killsMany(v); ok {
		hs = append(hs, hit{id: FloorKillAll, detail: v.name + " " + joinValues(v.args) + " " + why})
	}
	if why, ok := changesSystem(v); ok {
		hs = append(hs, hit{id: FloorWriteSystem, detail: v.name + " " + joinValues(v.args) + " " + why})
	}
	hs = append(hs, redirectHits(pt.cmd, cwds, env)...)
	if v.sedExec {
		hs = append(hs, hit{id: FloorDynamicCommand, detail: "sed's e command runs shell commands"})
	}
	if v.name == "sed" || v.name == "gsed" {
		hs = append(hs, b.sedFileHits(pt)...)
	}
	for _, w := range v.writes {
		hs = append(hs, writeHits(w, cwds, env, v.name)...)
	}
	hs = append(hs, tscHits(v, cwds, env)...)
	hs = append(hs, pkgConfigHits(v, cwds, env)...)
	if v.name == "go" {
		for _, w := range goImplicitOutputs(v.args, cwds, env) {
			hs = append(hs, writeHits(w, cwds, env, "go build (its binary, named after the package)")...)
		}
	}
	switch {
	case (v.script == scriptStdin || v.script == scriptDynamic) && b.hasFetcher:
		hs = append(hs, hit{id: FloorPipeToShell, detail: v.name + " runs code next to a download"})
	case v.script == scriptDynamic:
		hs = append(hs, hit{id: FloorDynamicCommand, detail: v.name + " runs code known only when it runs"})
	}
	hs = append(hs, execHits(pt.cmd, v)...)
	hs = append(hs, goFlagsWriteHits(pt.cmd, cwds, env)...)
	hs = append(hs, execOptionHits(v)...)
	hs = append(hs, b.dynamicWordHits(pt)...)
	hs = append(hs, b.credentialHits(pt)...)
	if o, ok := nameListOption(v); ok {
		hs = append(hs, hit{id: FloorCredentialRead, detail: v.name + " " + o + " reads the files a list names, known only when it runs"})
	}
	for _, a := range v.args {
		// sort, wc, du --files0-from=LIST read the files a list names:
		// which ones is known only when it runs (printf '.\145nv\0' | sort
		// --files0-from=- printed .env for the eighth red team).
		if n, _, _ := strings.Cut(a.Value, "="); n == "--files0-from" || len(n) > 8 && strings.HasPrefix("--files0-from", n) {
			hs = append(hs, hit{id: FloorCredentialRead, detail: v.name + " " + a.Value + " reads the files a list names, known only when it runs"})
			break
		}
	}
	hs = append(hs, b.envHits(pt)...)
	hs = append(hs, b.envValueHits(pt)...)
	hs = append(hs, b.extractHits(pt)...)
	hs = append(hs, inlineCodeHits(v, cwds, env)...)
	hs = append(hs, b.recursiveHits(pt)...)
	hs = append(hs, selectionHits(v, cwds, env, b.hasNetwork)...)
	hs = append(hs, shellStateHits(v)...)
	if v.name == "git" {
		hs = append(hs, gitRepoHits(v, cwds, env)...)
		hs = append(hs, gitPathHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitSwitchHits(v, cwds, env)...)
		hs = append(hs, gitURLHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitSecretHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitHistoryHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitMessageHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitNoIndexHits(parseGit(v.args), cwds, env, b.hasNetwork)...)
	}
	if v.name == "make" || v.name == "gmake" || v.name == "bmake" {
		for _, d := range targetsOutside(optionFiles(v.args, []string{"-C", "--directory"}), cwds, env, false) {
			hs = append(hs, hit{id: FloorCodeExec, detail: "make -C " + d + " runs the makefile of a folder outside the working directory"})
		}
		hs = append(hs, makeOverrideHits(v.args, cwds, env)...)
		hs = append(hs, b.makeEnvHits(cwds)...)
	}
	hs = append(hs, manifestHits(v, cwds, env)...)
	hs = append(hs, cargoFetchHits(v, cwds, env)...)
	hs = append(hs, outsideCodeHits(v, cwds, env)...)
	hs = append(hs, indirectHits(pt, cwds, env)...)
	if v.name == "go" {
		for _, d := range targetsOutside(optionFiles(v.args, []string{"-C"}), cwds, env, false) {
			hs = append(hs, hit{id: FloorCodeExec, detail: "go -C " + d + " builds and runs the code of a folder outside the working directory"})
		}
		hs = append(hs, goForeignPackageHits(v, cwds, env)...)
		hs = append(hs, cgoHits(v, cwds, env)...)
	}
	if v.name == "git" {
		hs = append(hs, gitStageHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, gitScopeStageHits(parseGit(v.args), cwds, env)...)
		hs = append(hs, b.commitShownHits(parseGit(v.args), cwds)...)
	}
	if v.name == "npx" || v.name == "pnpx" || v.name == "bunx" {
		hs = append(hs, npxHits(v, cwds, env)...)
	}
	if v.name == "pytest" || v.name == "py.test" || isPyModule(v.args, "pytest") {
		hs = append(hs, basetempHits(v, cwds, env)...)
	}
	if fetchers[v.name] || senders[v.name] {
		for _, a := range v.args {
			if a.Dynamic && !strings.HasPrefix(a.Value, "-") && !isAbsWord(a) {
				hs = append(hs, hit{id: FloorURLData, detail: v.name + " " + a.Raw + ": the address or data is computed when it runs, and can carry what the agent read"})
				break
			}
		}
	}
	hs = append(hs, globOptionHits(pt.cmd, pt.cwds, b.env)...)
	hs = append(hs, fetchURLHits(v)...)
	hs = append(hs, npmURLHits(v)...)
	hs = append(hs, hostDataHits(v)...)
	if why, ok := lookAlike(pt.cmd.Text, pt.cmd, v); ok {
		hs = append(hs, hit{id: FloorLookAlike, detail: why})
	} else if why, ok := b.rawHidden(); ok {
		// one the part's text lost at its ends: bash reads a form feed
		// as part of a word (~<FF> is not ~), the parser as a blank
		hs = append(hs, hit{id: FloorLookAlike, detail: why})
	}
	if depth == 0 && v.name != "" && !b.known(v.name) {
		hs = append(hs, b.argHits(pt)...)
	}
	return hs
}

// credentialHits: a credential named anywhere in the part is read, or
// sent off the machine when the compound command uses the network.
func (b *bashCheck) credentialHits(pt part) []hit {
	words := append(allWords(pt.cmd), pt.view.reads...)
	if metadataOnly(pt) {
		words = append(append([]Word{}, pt.cmd.Assigns...), pt.view.reads...)
		for _, r := range pt.cmd.Redirects {
			words = append(words, r.Target)
		}
	}
	read := readers[pt.view.name] || pt.view.name == "git" && gitPrintsFiles[parseGit(pt.view.args).sub]
	for _, w := range append(words, pt.view.writes...) {
		if p, ok := credentialInRead(w, pt.cwds, read); ok {
			if b.hasNetwork {
				return []hit{{id: FloorCredentialExfil, detail: p + " next to a network command"}}
			}
			return []hit{{id: FloorCredentialRead, detail: p}}
		}
	}
	return nil
}

// metadataOpts are the options of commands that print what the file
// system says of their operands (size, counts, type), never a line of
// them, and for each option whether the next word is its value. An
// option not listed (wc --files0-from, file -m MAGIC, du -X FILE read a
// file) keeps every word judged. cmp is not among them: the place of the
// first difference against a file the agent writes tells the secret a
// byte at a time.
var metadataOpts = map[string]map[string]bool{
	"stat": {"-L": false, "--dereference": false, "-f": false, "--file-system": false, "-t": false, "--terse": false,
		"-c": true, "--format": true, "--printf": true},
	"wc": {"-c": false, "-l": false, "-w": false, "-m": false, "-L": false, "--bytes": false, "--lines": false,
		"--words": false, "--chars": false, "--max-line-length": false},
	"du": {"-b": false, "-h": false, "-s": false, "-a": false, "-c": false, "-k": false, "-m": false, "-L": false,
		"--apparent-size": false, "--bytes": false, "--human-readable": false, "--summarize": false, "--total": false,
		"-d": true, "--max-depth": true},
	"file": {"-b": false, "-i": false, "-L": false, "-h": false, "-k": false, "--brief": false, "--mime": false,
		"--mime-type": false, "--mime-encoding": false, "--dereference": false, "--no-dereference": false},
}

// metadataOnly reports a part that runs one of those commands as written
// (no wrapper) with only the options listed: its operands are not read.
func metadataOnly(pt part) bool {
	known, ok := metadataOpts[pt.view.name]
	if !ok || len(pt.cmd.Args) == 0 || cmdName(pt.cmd.Args[0]) != pt.view.name {
		return false
	}
	for i := 1; i < len(pt.cmd.Args); i++ {
		a := pt.cmd.Args[i]
		if a.Dynamic {
			return false
		}
		if a.Value == "--" {
			break
		}
		if !strings.HasPrefix(a.Value, "-") || a.Value == "-" {
			continue
		}
		name, _, eq := strings.Cut(a.Value, "=")
		takes, listed := known[name]
		if !listed {
			return false
		}
		if takes && !eq {
			i++ // stat -c '%s %n': a format, not a file
		}
	}
	return true
}

// gitPrintsFiles are git's subcommands that print (or stage, for a diff
// to print) the files they name, looked at for keys and tokens as cat's
// are (red team 13b, finding 2: git blame settings.py, git show
// HEAD:settings.py).
var gitPrintsFiles = setOf("blame", "annotate", "show", "cat-file", "add", "grep", "commit", "stash", "diff", "log", "whatchanged")

// known reports a command the floor judges by its name.
func (b *bashCheck) known(name string) bool {
	if _, ok := interpreter(name); ok {
		return true
	}
	_, wrapper := wrappers[name]
	return wrapper || handled[name] || benign[name] || shells[name] || fetchers[name] || senders[name]
}

// argHits looks for a dangerous command among an unknown command's
// arguments (docker run img rm -rf /, strace -f sudo id) and judges it
// as if it ran here.
func (b *bashCheck) argHits(pt part) []hit {
	args := pt.view.args
	for i, a := range args {
		name := cmdName(a)
		if a.Dynamic || !(dangerNames[name] || len(name) > 4 && name[:4] == "mkfs") {
			continue
		}
		inner := Command{Args: args[i:], Text: joinValues(args[i:])}
		return b.floorOnly([]Command{inner}, pt.cwds, 1)
	}
	return nil
}

// floorOnly judges commands found inside another's arguments, and what
// they run in turn, against the floor alone.
func (b *bashCheck) floorOnly(cmds []Command, cwds cwdSet, depth int) []hit {
	var hs []hit
	for _, c := range cmds {
		v := lookThrough(c)
		if v.name == "find" {
			v.nested = append(v.nested, findExec(v.args, cwds, b.env)...)
		}
		hs = append(hs, b.hits(part{cmd: c, view: v, cwds: cwds}, depth)...)
		for _, n := range v.nested {
			if depth >= maxNested || len(hs) > maxParts {
				return append(hs, hit{id: FloorUnparsable, detail: errTooDeep.Error()})
			}
			var inner []Command
			if n.words != nil {
				inner = []Command{{Args: n.words, Text: joinValues(n.words)}}
			} else {
				split, err := splitShell(n.text, true)
				if err != nil {
					hs = append(hs, splitErrHit(err))
					continue
				}
				inner = split
			}
			hs = append(hs, b.floorOnly(inner, cwds.with(inner), depth+1)...)
		}
	}
	return hs
}

// splitErrHit is the floor entry of a text SplitShell refused: one that
// makes bash evaluate a value known only when it runs is a command known
// only when it runs; any other is unparsable.
func splitErrHit(err error) hit {
	if errors.Is(err, errEvaluates) {
		return hit{id: FloorDynamicCommand, detail: strings.TrimPrefix(err.Error(), ErrShell.Error()+": "+errEvaluates.Error()+": ")}
	}
	return hit{id: FloorUnparsable, detail: err.Error()}
}

func firstRaw(c Command) string {
	if len(c.Args) == 0 {
		return ""
	}
	return c.Args[0].Raw
}

// makeEnvHits judges the script's variable assignments as make's own
// command-line variables: make takes its environment as variables (every
// one the makefile leaves unset or sets with ?=, and all of them under
// make -e), so export TESTFLAGS=-exec=/x; make test reaches the recipe
// as make test TESTFLAGS=-exec=/x would.
func (b *bashCheck) makeEnvHits(cwds cwdSet) []hit {
	hs := append(makeHits(b.assigns), makeOverrideHits(b.assigns, cwds, b.env)...)
	for i := range hs {
		hs[i].detail = "in make's environment: " + strings.TrimPrefix(hs[i].detail, "make ")
	}
	return hs
}
