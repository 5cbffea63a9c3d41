package permit

import "strings"

// longOptions are the long options of commands that accept any unambiguous
// prefix of one (GNU getopt_long, git's parse-options, Python's argparse):
// make --eva is make --eval. The floor and the rules judge options by their
// full names, so a prefix is written out in full before either looks. A
// table needs the options the policy judges, and their close neighbours so
// that a prefix of two is left ambiguous (the command refuses it too).
// Where versions differ (mypy 1.11 added --junit-format), the table keeps
// the older set, so --junit is read as the write option --junit-xml
// (red team 11b, finding 9).
var longOptions = map[string][]string{
	"make": {"--always-make", "--directory", "--debug", "--environment-overrides", "--eval", "--file", "--makefile",
		"--help", "--ignore-errors", "--include-dir", "--jobs", "--keep-going", "--load-average", "--check-symlink-times",
		"--just-print", "--dry-run", "--recon", "--old-file", "--assume-old", "--output-sync", "--print-data-base",
		"--question", "--no-builtin-rules", "--no-builtin-variables", "--silent", "--quiet", "--no-keep-going", "--stop",
		"--touch", "--trace", "--version", "--print-directory", "--no-print-directory", "--what-if", "--new-file",
		"--assume-new", "--warn-undefined-variables", "--shuffle", "--no-silent"},
	"cp": {"--archive", "--attributes-only", "--backup", "--copy-contents", "--debug", "--force", "--interactive",
		"--link", "--dereference", "--no-clobber", "--no-dereference", "--preserve", "--no-preserve", "--parents",
		"--recursive", "--reflink", "--remove-destination", "--sparse", "--strip-trailing-slashes", "--symbolic-link",
		"--suffix", "--target-directory", "--no-target-directory", "--update", "--verbose", "--one-file-system", "--context", "--keep-directory-symlink"},
	"mv": {"--backup", "--debug", "--exchange", "--force", "--interactive", "--no-clobber", "--no-copy",
		"--strip-trailing-slashes", "--suffix", "--target-directory", "--no-target-directory", "--update", "--verbose", "--context"},
	"ln": {"--backup", "--directory", "--force", "--interactive", "--logical", "--no-dereference", "--physical",
		"--relative", "--symbolic", "--suffix", "--target-directory", "--no-target-directory", "--verbose"},
	"install": {"--backup", "--compare", "--directory", "--group", "--mode", "--owner", "--preserve-timestamps",
		"--strip", "--strip-program", "--suffix", "--target-directory", "--no-target-directory", "--verbose", "--debug", "--preserve-context", "--context"},
	"sed": {"--quiet", "--silent", "--debug", "--expression", "--file", "--follow-symlinks", "--in-place",
		"--line-length", "--posix", "--regexp-extended", "--separate", "--sandbox", "--unbuffered", "--null-data", "--zero-terminated", "--help", "--version"},
	"sort": {"--ignore-leading-blanks", "--dictionary-order", "--ignore-case", "--general-numeric-sort", "--ignore-nonprinting",
		"--month-sort", "--human-numeric-sort", "--numeric-sort", "--random-sort", "--random-source", "--reverse",
		"--sort", "--version-sort", "--batch-size", "--check", "--compress-program", "--debug", "--files0-from",
		"--key", "--merge", "--output", "--stable", "--buffer-size", "--field-separator", "--temporary-directory",
		"--parallel", "--unique", "--zero-terminated"},
	"date": {"--date", "--debug", "--file", "--iso-8601", "--resolution", "--rfc-email", "--rfc-3339", "--reference",
		"--set", "--utc", "--universal", "--help", "--version"},
	"tar": {"--create", "--append", "--extract", "--get", "--list", "--update", "--directory", "--file",
		"--transform", "--xform", "--absolute-names", "--one-top-level", "--strip-components", "--incremental",
		"--listed-incremental", "--remove-files", "--rsh-command", "--rmt-command", "--force-local", "--files-from",
		"--exclude", "--exclude-from", "--keep-old-files", "--overwrite", "--unlink-first", "--recursive-unlink",
		"--backup", "--suffix", "--verbose", "--gzip", "--gunzip", "--bzip2", "--xz", "--zstd", "--auto-compress",
		"--use-compress-program", "--to-command", "--info-script", "--new-volume-script", "--checkpoint", "--checkpoint-action",
		"--to-stdout", "--delete", "--diff", "--compare", "--concatenate", "--catenate"},
	"patch": {"--directory", "--input", "--output", "--reject-file", "--strip", "--prefix", "--suffix", "--basename-prefix",
		"--backup", "--backup-if-mismatch", "--no-backup-if-mismatch", "--version-control", "--dry-run", "--ifdef",
		"--fuzz", "--forward", "--reverse", "--batch", "--force", "--quiet", "--silent", "--verbose", "--binary",
		"--posix", "--merge", "--unified", "--context", "--normal", "--ed", "--read-only", "--follow-symlinks",
		"--set-time", "--set-utc", "--remove-empty-files", "--ignore-whitespace", "--help", "--version",
		"--quoting-style", "--get", "--reject-format", "--check"},
	"rsync": {"--rsh", "--rsync-path", "--delete", "--delete-before", "--delete-during", "--delete-delay", "--delete-after",
		"--delete-excluded", "--remove-source-files", "--recursive", "--archive", "--links", "--copy-links", "--dry-run", "--exclude", "--include", "--delay-updates"},
	"grep": {"--recursive", "--dereference-recursive", "--directories", "--file", "--regexp", "--invert-match",
		"--ignore-case", "--fixed-strings", "--extended-regexp", "--perl-regexp", "--basic-regexp", "--files-with-matches", "--files-without-match", "--include", "--exclude", "--exclude-dir"},
	"pytest": {"--basetemp", "--junitxml", "--junit-xml", "--junit-prefix", "--log-file", "--log-file-level", "--log-file-format", "--log-file-date-format", "--resultlog", "--result-log", "--html", "--debug", "--report-log", "--json-report-file", "--json-report", "--cov-config",
		"--config-file", "--override-ini", "--pdbcls", "--rootdir", "--confcutdir", "--cov-report", "--cov", "--pastebin", "--pyargs", "--pythonwarnings", "--tx", "--rsyncdir", "--ds", "--dist", "--numprocesses"},
	"mypy": {"--junit-xml", "--cache-dir", "--html-report", "--txt-report", "--xml-report", "--linecount-report",
		"--linecoverage-report", "--lineprecision-report", "--any-exprs-report", "--cobertura-xml-report",
		"--memory-xml-report", "--xslt-html-report", "--xslt-txt-report", "--python-executable", "--install-types", "--config-file", "--python-version"},
	"flake8": {"--output-file", "--tee", "--format", "--config", "--append-config", "--isolated", "--enable-extensions",
		"--require-plugins", "--bug-report", "--benchmark", "--statistics", "--count", "--exit-zero", "--show-source",
		"--quiet", "--verbose", "--color", "--select", "--extend-select", "--ignore", "--extend-ignore", "--per-file-ignores",
		"--max-line-length", "--max-doc-length", "--max-complexity", "--exclude", "--extend-exclude", "--filename",
		"--stdin-display-name", "--hang-closing", "--indent-size", "--jobs", "--disable-noqa", "--doctests", "--version", "--help"},
	"git fetch": {"--all", "--append", "--atomic", "--depth", "--deepen", "--shallow-since", "--shallow-exclude", "--unshallow",
		"--update-shallow", "--negotiation-tip", "--negotiate-only", "--dry-run", "--porcelain", "--write-fetch-head",
		"--force", "--keep", "--multiple", "--auto-maintenance", "--auto-gc", "--write-commit-graph", "--prefetch",
		"--prune", "--prune-tags", "--no-tags", "--refetch", "--refmap", "--tags", "--recurse-submodules", "--jobs",
		"--set-upstream", "--submodule-prefix", "--recurse-submodules-default", "--update-head-ok", "--upload-pack", "--exec",
		"--quiet", "--verbose", "--progress", "--server-option", "--show-forced-updates", "--ipv4", "--ipv6", "--filter", "--stdin"},
	"git pull": {"--commit", "--edit", "--cleanup", "--ff", "--ff-only", "--gpg-sign", "--log", "--signoff", "--stat",
		"--squash", "--verify", "--strategy", "--strategy-option", "--verify-signatures", "--summary", "--autostash",
		"--allow-unrelated-histories", "--rebase", "--all", "--append", "--depth", "--dry-run", "--force", "--keep",
		"--prune", "--no-tags", "--refmap", "--tags", "--jobs", "--set-upstream", "--upload-pack", "--exec", "--update-head-ok", "--quiet", "--verbose", "--progress"},
	"git clone": {"--local", "--no-hardlinks", "--shared", "--reference", "--dissociate", "--quiet", "--verbose",
		"--progress", "--server-option", "--no-checkout", "--reject-shallow", "--bare", "--sparse", "--filter",
		"--also-filter-submodules", "--mirror", "--origin", "--branch", "--upload-pack", "--exec", "--template", "--config",
		"--depth", "--shallow-since", "--shallow-exclude", "--single-branch", "--tags", "--recurse-submodules",
		"--shallow-submodules", "--remote-submodules", "--separate-git-dir", "--jobs", "--bundle-uri"},
	"git send-pack": {"--all", "--mirror", "--dry-run", "--force", "--receive-pack", "--exec", "--verbose", "--quiet",
		"--thin", "--atomic", "--signed", "--no-signed", "--push-option", "--stdin", "--stateless-rpc", "--helper-status",
		"--force-with-lease", "--force-if-includes", "--progress"},
	"git ls-remote": {"--heads", "--tags", "--refs", "--quiet", "--upload-pack", "--exec", "--exit-code", "--get-url", "--symref", "--sort", "--server-option"},
	"git push": {"--all", "--branches", "--prune", "--mirror", "--dry-run", "--porcelain", "--delete", "--tags",
		"--follow-tags", "--signed", "--atomic", "--push-option", "--receive-pack", "--exec", "--force-with-lease",
		"--force-if-includes", "--force", "--repo", "--set-upstream", "--thin", "--quiet", "--verbose", "--progress",
		"--recurse-submodules", "--verify", "--ipv4", "--ipv6"},
	"git grep": {"--cached", "--no-index", "--untracked", "--exclude-standard", "--recurse-submodules", "--text",
		"--textconv", "--ignore-case", "--max-depth", "--word-regexp", "--invert-match", "--full-name", "--extended-regexp",
		"--basic-regexp", "--perl-regexp", "--fixed-strings", "--line-number", "--column", "--files-with-matches",
		"--name-only", "--files-without-match", "--open-files-in-pager", "--null", "--only-matching", "--count",
		"--color", "--break", "--heading", "--show-function", "--context", "--after-context", "--before-context",
		"--function-context", "--threads", "--and", "--or", "--not", "--all-match", "--quiet", "--max-count"},
	"git checkout": {"--quiet", "--progress", "--force", "--ours", "--theirs", "--track", "--guess", "--detach",
		"--orphan", "--ignore-skip-worktree-bits", "--merge", "--conflict", "--patch", "--ignore-other-worktrees",
		"--overwrite-ignore", "--recurse-submodules", "--overlay", "--pathspec-from-file", "--pathspec-file-nul"},
	"git switch": {"--create", "--force-create", "--detach", "--guess", "--force", "--discard-changes", "--merge",
		"--conflict", "--quiet", "--progress", "--track", "--orphan", "--ignore-other-worktrees", "--recurse-submodules"},
	"git branch": {"--delete", "--create-reflog", "--force", "--move", "--copy", "--color", "--list", "--show-current",
		"--verbose", "--quiet", "--abbrev", "--track", "--set-upstream-to", "--unset-upstream", "--edit-description",
		"--contains", "--no-contains", "--merged", "--no-merged", "--sort", "--points-at", "--format", "--remotes", "--all", "--ignore-case", "--omit-empty"},
	"git commit": {"--all", "--patch", "--reuse-message", "--reedit-message", "--fixup", "--squash", "--reset-author",
		"--short", "--branch", "--porcelain", "--long", "--null", "--file", "--author", "--date", "--message",
		"--template", "--signoff", "--trailer", "--no-verify", "--verify", "--allow-empty", "--allow-empty-message",
		"--cleanup", "--edit", "--amend", "--no-post-rewrite", "--include", "--only", "--pathspec-from-file",
		"--pathspec-file-nul", "--untracked-files", "--verbose", "--quiet", "--dry-run", "--status", "--gpg-sign"},
	"git rm":    {"--force", "--dry-run", "--cached", "--ignore-unmatch", "--sparse", "--quiet", "--pathspec-from-file", "--pathspec-file-nul"},
	"git clean": {"--dry-run", "--force", "--interactive", "--quiet", "--exclude"},
	"git restore": {"--source", "--patch", "--worktree", "--staged", "--quiet", "--progress", "--ours", "--theirs",
		"--merge", "--conflict", "--ignore-unmerged", "--ignore-skip-worktree-bits", "--recurse-submodules", "--overlay", "--pathspec-from-file", "--pathspec-file-nul"},
	"git reset": {"--quiet", "--refresh", "--no-refresh", "--pathspec-from-file", "--pathspec-file-nul", "--soft", "--mixed", "--hard", "--merge", "--keep", "--recurse-submodules", "--intent-to-add", "--patch"},
	"git add": {"--dry-run", "--verbose", "--force", "--interactive", "--patch", "--edit", "--update", "--all",
		"--no-ignore-removal", "--no-all", "--ignore-removal", "--intent-to-add", "--refresh", "--ignore-errors",
		"--ignore-missing", "--sparse", "--chmod", "--pathspec-from-file", "--pathspec-file-nul", "--renormalize"},
	"git stash": {"--patch", "--staged", "--keep-index", "--include-untracked", "--all", "--quiet", "--message", "--pathspec-from-file", "--pathspec-file-nul", "--index"},
	"git diff":  {"--output", "--cached", "--staged", "--no-index", "--ext-diff", "--textconv", "--stat", "--patch"},
	"git log":   {"--output", "--ext-diff", "--textconv", "--patch", "--stat", "--oneline", "--all", "--follow"},
	"git show":  {"--output", "--ext-diff", "--textconv", "--patch", "--stat", "--oneline"},
	"git mv":    {"--force", "--dry-run", "--verbose", "--sparse"},
}

// expandLongOptions writes out, in place, every abbreviated long option of
// a command whose options the table knows: the words are the command's
// own, so the rules see the full names too.
func expandLongOptions(name string, args []Word) {
	key := name
	if isPython(name) && pyTool(args) != "" {
		key = pyTool(args)
	}
	if name == "py.test" {
		key = "pytest"
	}
	if name == "git" {
		g := parseGit(args)
		key = "git " + g.sub
		args = g.args
	}
	known := longOptions[key]
	if known == nil {
		return
	}
	for i := range args {
		a := args[i].Value
		if a == "--" {
			return
		}
		if !strings.HasPrefix(a, "--") || len(a) < 3 || args[i].Dynamic {
			continue
		}
		k, val, eq := strings.Cut(a, "=")
		full := ""
		for _, o := range known {
			if o == k {
				full = ""
				break // already whole
			}
			if strings.HasPrefix(o, k) {
				if full != "" {
					full = "" // ambiguous: the command refuses it
					break
				}
				full = o
			}
		}
		if full == "" {
			continue
		}
		if eq {
			full += "=" + val
		}
		args[i].Raw = strings.Replace(args[i].Raw, k, full, 1)
		args[i].Value = full
	}
}
