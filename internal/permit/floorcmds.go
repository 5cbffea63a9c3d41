package permit

import (
	"regexp"
	"strings"
)

// diskTools write disks and partition tables.
var diskTools = map[string]bool{"fdisk": true, "sfdisk": true, "cfdisk": true, "gdisk": true, "sgdisk": true,
	"cgdisk": true, "parted": true, "wipefs": true, "blkdiscard": true, "mkswap": true,
	"mke2fs": true, "mkdosfs": true, "newfs": true, "mkntfs": true, "mkexfatfs": true, "lvremove": true,
	"vgremove": true, "pvremove": true}

// powerCmds stop the machine.
var powerCmds = map[string]bool{"shutdown": true, "reboot": true, "halt": true, "poweroff": true, "openrc-shutdown": true}

// powerVerbs are systemctl and loginctl verbs that stop the machine.
var powerVerbs = map[string]bool{"poweroff": true, "reboot": true, "halt": true, "kexec": true, "suspend": true,
	"hibernate": true, "hybrid-sleep": true, "emergency": true, "rescue": true, "soft-reboot": true}

// fetchers download from the network.
var fetchers = map[string]bool{"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true,
	"https": true, "xh": true, "lwp-request": true, "get": true, "nc": true, "ncat": true, "netcat": true,
	"socat": true, "telnet": true, "ftp": true, "tftp": true, "lynx": true, "w3m": true, "links": true}

// senders move data off the machine, besides the fetchers.
var senders = map[string]bool{"ssh": true, "scp": true, "sftp": true, "rsync": true, "rclone": true,
	"aws": true, "gsutil": true, "gcloud": true, "az": true, "s3cmd": true, "mail": true, "mailx": true,
	"sendmail": true, "mutt": true, "dig": true, "nslookup": true, "host": true, "gh": true, "glab": true,
	"smbclient": true, "ping": true}

// benign commands take data, not commands, as arguments: the floor does
// not look for a command among them.
var benign = map[string]bool{"echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true,
	"rg": true, "ag": true, "ack": true, "cat": true, "head": true, "tail": true, "less": true, "more": true,
	"wc": true, "sort": true, "uniq": true, "cut": true, "tr": true, "ls": true, "test": true, "[": true,
	"true": true, "false": true, "jq": true, "yq": true, "diff": true, "cmp": true, "comm": true,
	"basename": true, "dirname": true, "realpath": true, "readlink": true, "stat": true, "file": true,
	"type": true, "which": true, "whereis": true, "man": true, "help": true, "export": true,
	"declare": true, "local": true, "readonly": true, "printenv": true, "git": true, "cd": true, "pwd": true,
	"mkdir": true, "touch": true, "awk": true, "sed": true, "column": true, "xxd": true, "od": true,
	"hexdump": true, "md5sum": true, "sha256sum": true, "shasum": true, "tee": true, "cp": true, "mv": true,
	"ln": true, "tar": true, "zip": true, "unzip": true, "gzip": true, "gunzip": true, "date": true,
	"sleep": true, "env": true, "set": true, "unset": true, "alias": true, "history": true, "apropos": true}

// dangerNames are commands the floor looks for inside the arguments of an
// unknown command (docker run img rm -rf /, strace -f sudo ...).
var dangerNames = map[string]bool{"rm": true, "rmdir": true, "shred": true, "dd": true, "sudo": true,
	"doas": true, "su": true, "pkexec": true, "shutdown": true, "reboot": true, "halt": true, "poweroff": true,
	"chmod": true, "chown": true, "find": true, "sh": true, "bash": true, "zsh": true, "kill": true,
	"mkfs": true, "fdisk": true, "parted": true, "wipefs": true}

// isDiskTool reports a disk or partitioning command.
func isDiskTool(v view) bool {
	name := v.name
	switch {
	case diskTools[name] || strings.HasPrefix(name, "mkfs"):
		return true
	case name == "diskutil" || name == "nvme" || name == "zpool" || name == "zfs" || name == "cryptsetup":
		for _, a := range v.args {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix(l, "erase") || strings.HasPrefix(l, "partition") || l == "zerodisk" ||
				l == "secureerase" || l == "format" || l == "sanitize" || l == "destroy" || l == "luksformat" {
				return true
			}
		}
	case name == "hdparm":
		for _, a := range v.args {
			if strings.HasPrefix(a.Value, "--security-erase") || strings.HasPrefix(a.Value, "--trim-sector") {
				return true
			}
		}
	}
	return false
}

// isPower reports a command that stops the machine.
func isPower(v view) bool {
	switch {
	case powerCmds[v.name]:
		return true
	case v.name == "init" || v.name == "telinit":
		return len(v.args) > 0 && (v.args[0].Value == "0" || v.args[0].Value == "6")
	case v.name == "systemctl" || v.name == "loginctl":
		for _, a := range v.args {
			if powerVerbs[a.Value] {
				return true
			}
		}
	}
	return false
}

// isKillAll reports kill with -1 as the process: every process of the user.
func isKillAll(v view) bool {
	if v.name == "killall5" {
		return true
	}
	if v.name != "kill" {
		return false
	}
	args := v.args
	switch {
	case len(args) > 1 && (args[0].Value == "-s" || args[0].Value == "-n"):
		args = args[2:]
	case len(args) > 0 && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "--" && args[0].Value != "-1":
		args = args[1:]
	case len(args) > 1 && args[0].Value == "-1" && args[1].Value != "--":
		args = args[1:] // kill -1 PID sends SIGHUP; kill -1 alone is not valid
	}
	for _, a := range args {
		if a.Value == "-1" {
			return true
		}
	}
	return false
}

// gitInfo is a git command line: its subcommand and what its -c options run.
type gitInfo struct {
	sub    string
	args   []Word
	nested []nested
}

// gitConfigRuns are configuration keys whose value git runs as a shell command.
var gitConfigRuns = map[string]bool{"core.pager": true, "core.editor": true, "core.sshcommand": true,
	"core.fsmonitor": true, "core.askpass": true, "sequence.editor": true, "diff.external": true,
	"gpg.program": true, "uploadpack.packobjectshook": true}

func parseGit(args []Word) gitInfo {
	var g gitInfo
	for len(args) > 0 {
		a := args[0].Value
		if !strings.HasPrefix(a, "-") {
			break
		}
		args = args[1:]
		switch a {
		case "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix":
			if len(args) > 0 {
				args = args[1:]
			}
		case "-c":
			if len(args) > 0 {
				g.nested = append(g.nested, gitConfigCommand(args[0].Value)...)
				args = args[1:]
			}
		}
	}
	if len(args) > 0 {
		g.sub, g.args = args[0].Value, args[1:]
	}
	return g
}

// gitConfigCommand returns the shell command a -c key=value makes git run.
func gitConfigCommand(kv string) []nested {
	k, v, _ := strings.Cut(kv, "=")
	k = strings.ToLower(k)
	switch {
	case strings.HasPrefix(k, "alias.") || k == "credential.helper":
		if cmd, ok := strings.CutPrefix(v, "!"); ok {
			return []nested{{text: cmd}}
		}
	case gitConfigRuns[k] || strings.HasPrefix(k, "pager."):
		return []nested{{text: v}}
	}
	return nil
}

// gitHits: force pushes, remote deletes, and discarding uncommitted work.
func gitHits(g gitInfo) []hit {
	ops, opts := operands(g.args)
	has := func(vals ...string) bool {
		for _, o := range ops {
			for _, v := range vals {
				if o.Value == v {
					return true
				}
			}
		}
		return false
	}
	switch g.sub {
	case "push", "send-pack", "http-push":
		// send-pack and http-push are the plumbing under push: they
		// force and delete as it does (red team 13b, finding 6)
		var hs []hit
		force := hasShort(opts, "f") || hasLong(opts, "--force", "--mirror")
		del := hasShort(opts, "d") || hasLong(opts, "--delete", "--prune") || g.sub == "http-push" && hasShort(opts, "D")
		for _, o := range ops {
			force = force || strings.HasPrefix(o.Value, "+")
			del = del || len(o.Value) > 1 && o.Value[0] == ':'
		}
		if g.sub != "push" {
			if hasLong(opts, "--stdin") {
				force = true // the refs come from standard input: +ref and :ref among them
			}
			if force {
				hs = append(hs, hit{id: FloorGitForcePush, detail: "git " + g.sub + " " + joinValues(g.args)})
			}
			if del {
				hs = append(hs, hit{id: FloorGitPushDelete, detail: "git " + g.sub + " " + joinValues(g.args)})
			}
			return hs
		}
		if force {
			hs = append(hs, hit{id: FloorGitForcePush, detail: "git push " + joinValues(g.args)})
		}
		if (hasShort(opts, "u") || hasLong(opts, "--set-upstream")) && len(ops) > 0 && strings.ContainsAny(ops[0].Value, "/:") {
			hs = append(hs, hit{id: FloorProtectedFile, detail: "git push --set-upstream " + ops[0].Raw + " writes that address into .git/config: every later plain git push and pull goes there"})
		}
		if del {
			hs = append(hs, hit{id: FloorGitPushDelete, detail: "git push " + joinValues(g.args)})
		}
		return hs
	case "credential", "credential-store", "credential-cache":
		if len(ops) > 0 && (ops[0].Value == "fill" || ops[0].Value == "get") {
			return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " " + ops[0].Value + " prints the stored password or token of a host"}}
		}
	case "send-email":
		return []hit{{id: FloorURLData, detail: "git send-email mails commits, or any file it is given, to the addresses it names"}}
	case "clone", "init":
		for _, o := range opts {
			if o == "--template" || strings.HasPrefix(o, "--template=") {
				return []hit{{id: FloorCodeExec, detail: "git " + g.sub + " --template copies a folder's hooks into the new repository, which later git commands run"}}
			}
		}
	case "reset":
		if hasLong(opts, "--hard") {
			return []hit{{id: FloorGitDiscard, detail: "git reset --hard"}}
		}
		if hasLong(opts, "--merge") { // resets a staged change in the tree too
			return []hit{{id: FloorGitDiscard, detail: "git reset --merge discards staged changes"}}
		}
	case "clean":
		if (hasShort(opts, "f") || hasLong(opts, "--force")) && !hasShort(opts, "n") && !hasLong(opts, "--dry-run") {
			return []hit{{id: FloorGitDiscard, detail: "git clean " + joinValues(g.args)}}
		}
	case "checkout":
		if hasShort(opts, "f") || hasLong(opts, "--force") || has(".", ":/", "*") {
			return []hit{{id: FloorGitDiscard, detail: "git checkout " + joinValues(g.args)}}
		}
		if hasShort(opts, "Bmp") || hasLong(opts, "--merge", "--conflict", "--patch", "--ours", "--theirs", "--pathspec-from-file",
			"--ignore-other-worktrees", "--recurse-submodules", "--ignore-skip-worktree-bits") {
			return []hit{{id: FloorGitDiscard, detail: "git checkout " + joinValues(g.args) + " resets a branch, merges or discards uncommitted changes, or takes a branch another worktree holds"}}
		}
	case "switch":
		if hasShort(opts, "fCm") || hasLong(opts, "--force", "--discard-changes", "--force-create", "--merge", "--conflict",
			"--ignore-other-worktrees", "--recurse-submodules", "--orphan") {
			return []hit{{id: FloorGitDiscard, detail: "git switch " + joinValues(g.args) + " resets a branch, merges or discards uncommitted changes, empties the tree, or takes a branch another worktree holds"}}
		}
	case "restore":
		staged := hasShort(opts, "S") || hasLong(opts, "--staged")
		worktree := hasShort(opts, "W") || hasLong(opts, "--worktree")
		if (!staged || worktree) && has(".", ":/", "*") {
			return []hit{{id: FloorGitDiscard, detail: "git restore " + joinValues(g.args)}}
		}
	case "stash":
		if len(ops) > 0 && (ops[0].Value == "clear" || ops[0].Value == "drop") {
			return []hit{{id: FloorGitDiscard, detail: "git stash " + ops[0].Value + " drops stashed work, which no reflog keeps"}}
		}
	case "tag":
		if hasShort(opts, "d") || hasLong(opts, "--delete") {
			return []hit{{id: FloorGitDiscard, detail: "git tag --delete drops a tag, which no reflog keeps"}}
		}
	case "read-tree":
		if hasShort(opts, "u") {
			return []hit{{id: FloorGitDiscard, detail: "git read-tree -u " + joinValues(g.args) + " writes the tree over the working files, uncommitted changes too"}}
		}
	case "checkout-index":
		if hasShort(opts, "f") || hasLong(opts, "--force") {
			return []hit{{id: FloorGitDiscard, detail: "git checkout-index --force " + joinValues(g.args) + " writes the staged files over the working ones, uncommitted changes too"}}
		}
	case "symbolic-ref":
		if len(ops) > 1 {
			return []hit{{id: FloorGitDiscard, detail: "git symbolic-ref " + joinValues(g.args) + " points a ref at another, whatever it held"}}
		}
	case "update-ref":
		return []hit{{id: FloorGitDiscard, detail: "git update-ref " + joinValues(g.args) + " moves or deletes a ref whatever it holds"}}
	case "filter-branch", "filter-repo":
		return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " rewrites the history of every branch it touches"}}
	case "notes":
		if len(ops) > 0 && (ops[0].Value == "remove" || ops[0].Value == "prune") {
			return []hit{{id: FloorGitDiscard, detail: "git notes " + ops[0].Value + " drops notes, which no reflog keeps"}}
		}
	case "rm":
		if (hasShort(opts, "f") || hasLong(opts, "--force")) && !hasLong(opts, "--cached") {
			return []hit{{id: FloorGitDiscard, detail: "git rm --force deletes files with uncommitted changes " + joinValues(ops)}}
		}
	case "branch":
		del := hasShort(opts, "dD") || hasLong(opts, "--delete")
		force := hasShort(opts, "DfMC") || hasLong(opts, "--force")
		if del && force || force && len(ops) > 0 {
			return []hit{{id: FloorGitDiscard, detail: "git branch " + joinValues(g.args) + " drops or moves a branch whatever it holds"}}
		}
	case "reflog":
		if len(ops) > 0 && (ops[0].Value == "expire" || ops[0].Value == "delete" || ops[0].Value == "drop") {
			return []hit{{id: FloorGitDiscard, detail: "git reflog " + ops[0].Value + " removes the record that brings lost commits back"}}
		}
	case "gc":
		if hasLong(opts, "--prune=now", "--prune=all") {
			return []hit{{id: FloorGitDiscard, detail: "git gc --prune=now removes unreachable commits at once"}}
		}
	case "prune":
		return []hit{{id: FloorGitDiscard, detail: "git prune removes unreachable commits"}}
	case "worktree":
		if len(ops) > 0 && ops[0].Value == "remove" && (hasShort(opts, "f") || hasLong(opts, "--force")) {
			return []hit{{id: FloorGitDiscard, detail: "git worktree remove --force discards the worktree's uncommitted changes"}}
		}
		if len(ops) > 0 && ops[0].Value == "prune" {
			return []hit{{id: FloorGitDiscard, detail: "git worktree prune drops the records (HEAD, reflog) of worktrees it cannot see, and the commits only they held"}}
		}
	case "fetch", "pull":
		if hasLong(opts, "--depth", "--shallow-since", "--shallow-exclude", "--update-shallow") {
			return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " " + joinValues(g.args) + " makes the clone shallow: older history is no longer there, and goes at the next gc"}}
		}
		force := hasShort(opts, "f") || hasLong(opts, "--force", "--update-head-ok")
		for i, o := range ops {
			if i == 0 {
				continue // the repository
			}
			src, dst, ok := strings.Cut(strings.TrimPrefix(o.Value, "+"), ":")
			_ = src
			if strings.HasPrefix(o.Value, "+") || ok && dst != "" && !strings.HasPrefix(dst, "refs/remotes/") && !strings.HasPrefix(dst, "refs/tags/") {
				force = true
			}
		}
		for _, o := range opts {
			if m, ok := strings.CutPrefix(o, "--refmap="); ok {
				_, dst, _ := strings.Cut(strings.TrimPrefix(m, "+"), ":")
				force = force || strings.HasPrefix(m, "+") || dst != "" && !strings.HasPrefix(dst, "refs/remotes/")
			}
		}
		if force {
			return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " " + joinValues(g.args) + " overwrites local branches"}}
		}
		if len(ops) > 1 {
			for _, o := range ops[1:] {
				if why, ok := fetchForeignRef(ops[0].Value, o.Value); ok {
					return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " " + o.Value + ": " + why}}
				}
			}
		}
		if hasLong(opts, "--stdin") {
			return []hit{{id: FloorGitDiscard, risk: Critical, detail: "git " + g.sub + " --stdin takes its refspecs from standard input, known only when it runs: they can delete (with --prune) or overwrite every local branch"}}
		}
		if hasLong(opts, "--set-upstream") {
			return []hit{{id: FloorProtectedFile, detail: "git " + g.sub + " --set-upstream writes the branch's upstream into .git/config: every later plain git push and pull goes where it names"}}
		}
		prune := hasShort(opts, "p") || hasLong(opts, "--prune")
		for _, o := range ops {
			_, dst, _ := strings.Cut(strings.TrimPrefix(o.Value, "+"), ":")
			if prune && strings.HasPrefix(dst, "refs/tags/") {
				return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " " + joinValues(g.args) + " deletes every local tag the remote does not have (--prune with a tag refspec is --prune-tags)"}}
			}
		}
		if hasShort(opts, "P") || hasLong(opts, "--prune-tags") {
			return []hit{{id: FloorGitDiscard, detail: "git " + g.sub + " --prune-tags deletes every local tag the remote does not have"}}
		}
	}
	return nil
}

// gitPathHits: git checkout and restore of paths throw away the
// uncommitted changes of those files.
func gitPathHits(g gitInfo, cwds cwdSet, env Env) []hit {
	ops, opts := operands(g.args)
	switch g.sub {
	case "mv": // git mv writes and takes away files as mv does
		hs := copyHits(view{name: "mv", args: g.args}, cwds, env)
		if hasShort(opts, "f") || hasLong(opts, "--force") {
			if len(ops) > 1 && pathExists(ops[len(ops)-1], cwds, env) {
				hs = append(hs, hit{id: FloorGitDiscard, detail: "git mv -f " + joinValues(g.args) + " overwrites " + ops[len(ops)-1].Raw})
			}
		}
		return hs
	case "restore":
		staged := hasShort(opts, "S") || hasLong(opts, "--staged")
		worktree := hasShort(opts, "W") || hasLong(opts, "--worktree")
		if (!staged || worktree) && len(ops) > 0 {
			return []hit{{id: FloorGitDiscard, detail: "git restore " + joinValues(g.args) + " discards the uncommitted changes of those files"}}
		}
	case "checkout":
		if hasShort(opts, "bB") || hasLong(opts, "--orphan") {
			return nil
		}
		dd := false
		for _, a := range g.args {
			if a.Value == "--" {
				dd = true
			}
		}
		paths := dd
		for i, o := range ops {
			if i == 0 && !dd && len(ops) == 1 && !pathExists(o, cwds, env) {
				break // a branch or commit
			}
			if pathExists(o, cwds, env) || o.Glob {
				paths = true
			}
		}
		if paths {
			return []hit{{id: FloorGitDiscard, detail: "git checkout " + joinValues(g.args) + " overwrites files with their committed version, discarding uncommitted changes"}}
		}
	}
	return nil
}

// pathExists reports a word that names an existing file (with an FS).
func pathExists(w Word, cwds cwdSet, env Env) bool {
	if env.FS == nil || w.Dynamic {
		return false
	}
	abs, ok := cwds.resolve(w)
	if !ok {
		return false
	}
	for _, a := range abs {
		if _, err := env.FS.Lstat(a); err == nil {
			return true
		}
	}
	return false
}

// funcDef finds shell function definitions: name() { body } and function name { body }.
var funcDef = regexp.MustCompile(`(?:function\s+)?([^\s(){};|&<>'"]+)\s*(?:\(\s*\))?\s*\{([^}]*)\}`)

// isForkBomb reports a function that pipes itself into itself in the
// background (:(){ :|:& };:), or the perl and python one-liners.
func isForkBomb(s string) bool {
	for _, m := range funcDef.FindAllStringSubmatch(s, -1) {
		name, body := m[1], strings.Join(strings.Fields(m[2]), "")
		if strings.Contains(body, name+"|"+name) && strings.Contains(body, "&") {
			return true
		}
	}
	compact := strings.Join(strings.Fields(s), " ")
	return strings.Contains(compact, "fork while fork") || strings.Contains(compact, "fork() while") ||
		strings.Contains(compact, "while True: os.fork()") || strings.Contains(compact, "while 1: os.fork()")
}

// setsClock reports a command that sets the system clock: date -s or a
// bare MMDDhhmm operand, timedatectl set-time, hwclock --set.
func setsClock(v view) bool {
	switch v.name {
	case "date", "gdate":
		for i := 0; i < len(v.args); i++ {
			a := v.args[i].Value
			switch {
			case a == "-s" || strings.HasPrefix(a, "--set"):
				return true
			case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "s"):
				return true // -us
			case a == "-d" || a == "--date" || a == "-r" || a == "--reference" || a == "-f" || a == "--file":
				i++ // their value is not an operand
			case !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
				return true // date MMDDhhmm[[CC]YY][.ss]
			}
		}
	case "timedatectl":
		for _, a := range v.args {
			if strings.HasPrefix(a.Value, "set-") {
				return true
			}
		}
	case "hwclock":
		for _, a := range v.args {
			switch a.Value {
			case "--set", "-w", "--systohc", "-s", "--hctosys", "--adjust", "-a":
				return true
			}
		}
	}
	return false
}

// fetchForeignRef reports a fetch refspec that writes a tag, or another
// remote's tracking branch, or one of the same remote's under another
// name: git fetch URL main:refs/remotes/origin/main makes an attacker's
// fork origin/main, which later prompts (git merge origin/main) name as
// upstream (red team 10b, finding 18).
func fetchForeignRef(repo, spec string) (string, bool) {
	src, dst, ok := strings.Cut(strings.TrimPrefix(spec, "+"), ":")
	if !ok || dst == "" {
		return "", false
	}
	if strings.HasPrefix(dst, "refs/tags/") {
		return "it writes the tag " + strings.TrimPrefix(dst, "refs/tags/") + ", which releases and checkouts trust", true
	}
	rest, ok := strings.CutPrefix(dst, "refs/remotes/")
	if !ok {
		return "", false
	}
	remote, branch, _ := strings.Cut(rest, "/")
	if remote != repo || strings.TrimPrefix(src, "refs/heads/") != branch {
		return "it writes " + dst + " with what " + repo + " calls " + src + ": the remote-tracking branch then shows another repository's or branch's commits under a trusted name", true
	}
	return "", false
}
