package permit

import (
	"path"
	"strings"
)

// FloorProtectedFile is a write to a file that runs code or steers a tool.
const FloorProtectedFile = "protected-file"

// protectedDirs are folders whose every file runs code or configures a
// tool that does (matched in any letter case: macOS and Windows disks
// do not tell .GIT from .git).
var protectedDirs = map[string]string{
	".git":    "git's configuration and hooks (a hook or core.fsmonitor runs on the next git command)",
	".claude": "Claude Code's settings and hooks", ".codex": "Codex's configuration", ".gemini": "Gemini CLI's settings",
	".trae":   "the instructions Trae's agent reads (red team 23a, finding 4)",
	".cursor": "Cursor's settings", ".vscode": "the editor's tasks and settings (tasks run on opening the folder)",
	".idea": "the IDE's run configurations", ".husky": "git hooks run by husky", ".devcontainer": "the dev container's commands",
	".circleci": "CI pipelines", ".buildkite": "CI pipelines", ".cargo": "cargo's configuration (runners, wrappers, aliases)",
	".teamlead": "teamlead's own state", ".githooks": "git hooks",
	".gitlab": "CI templates .gitlab-ci.yml includes", ".gitea": "CI workflows", ".forgejo": "CI workflows",
	".woodpecker": "CI pipelines", ".continue": "an editor agent's settings", ".windsurf": "an editor agent's settings",
	".zed": "the editor's tasks and settings",
	".hg":  "Mercurial's repository ([hooks] and [extensions] in .hg/hgrc run code)", ".jj": "Jujutsu's repository and its configuration",
	".sl": "Sapling's repository and its configuration", ".junie": "an agent's instructions (JetBrains Junie)",
	".kiro": "an agent's instructions and hooks (Kiro)", ".amazonq": "an agent's rules (Amazon Q)", ".roo": "an agent's rules and modes (Roo Code)",
	".kilocode": "an agent's rules (Kilo Code)", ".qwen": "an agent CLI's settings (Qwen Code)", ".opencode": "an agent CLI's settings and commands (opencode)",
	".augment":  "an agent's rules (Augment)",
	".agents":   "the agents' skills (Codex, OpenCode, Copilot CLI: instructions and the scripts they are told to run)",
	".lefthook": "the scripts lefthook's git hooks run", ".lefthook-local": "the scripts lefthook's git hooks run", ".clinerules": "the instructions the editor's agent reads",
	".helix": "the editor's language servers (commands run on opening a file)", ".lapce": "the editor's run configurations",
	".theia": "the editor's tasks", ".fleet": "the editor's run configurations", ".mise": "mise's configuration and tasks",
	".semaphore": "CI pipelines", ".builds": "CI pipelines (sourcehut)", ".tekton": "CI pipelines", ".teamcity": "CI pipelines",
	"zuul.d": "CI pipelines (Zuul)", "bamboo-specs": "CI pipelines (Bamboo)", ".azure-pipelines": "CI pipelines", ".ci": "CI scripts",
}

// protectedSubDirs are folders protected under one parent only: yarn's
// release (the file yarnPath runs) and plugins, mise's folder under .config.
var protectedSubDirs = map[[2]string]string{{".yarn", "releases"}: "the yarn release every yarn command runs",
	// red team 23a, findings 2 and 4: the binaries cargo runs again when
	// they look newer than the sources; the editor SDK wrappers yarn makes
	{"target", "debug"}:   "the binaries cargo builds (cargo run runs one that looks up to date)",
	{"target", "release"}: "the binaries cargo builds (cargo run runs one that looks up to date)",
	{".yarn", "sdks"}:     "the SDK wrappers the editor runs (yarn dlx @yarnpkg/sdks)",
	{".yarn", "plugins"}:  "yarn's plugins (run by every yarn command)", {".config", "mise"}: "mise's configuration (hooks, env scripts)",
	{"node_modules", ".bin"}: "the programs npx and npm scripts run by name (npx tsc runs node_modules/.bin/tsc)",
	{".venv", "bin"}:         "the programs the project's virtual environment runs by name", {"venv", "bin"}: "the programs the project's virtual environment runs by name"}

// protectedGitHub are the entries of .github that steer CI, review or the
// agents: workflows and actions run with the repository's secrets, hooks
// are the commands Copilot's coding agent runs,
// CODEOWNERS decides who must review, dependabot.yml names registries and
// their credentials, the rest are Copilot's instructions and prompts.
var protectedGitHub = map[string]bool{"workflows": true, "actions": true, "dependabot.yml": true, "dependabot.yaml": true,
	"instructions": true, "prompts": true, "chatmodes": true, "agents": true, "copilot": true, "hooks": true,
	"skills": true}

// protectedPrefixes and protectedSuffixes are families of such files
// (.lintstagedrc.json, lint-staged.config.mjs, app.code-workspace).
var (
	protectedPrefixes = map[string]string{".lintstagedrc": "the commands lint-staged runs on every commit",
		// every format lefthook reads (red team 22a, finding 4: .lefthook.toml's
		// pre-commit command ran at git commit)
		"lefthook.": "lefthook's git hooks", ".lefthook.": "lefthook's git hooks", "lefthook-local.": "lefthook's git hooks",
		".lefthook-local.":    "lefthook's git hooks",
		"lint-staged.config.": "the commands lint-staged runs on every commit", ".simple-git-hooks": "git hooks (simple-git-hooks)",
		"simple-git-hooks.": "git hooks (simple-git-hooks)", ".huskyrc": "git hooks run by husky", "husky.config.": "git hooks run by husky",
		"tsconfig":       "the TypeScript compiler's project (where it writes: outDir, tsBuildInfoFile; plugins)",
		".eslintrc":      "eslint's configuration (plugins, parsers and formatters are code it runs)",
		"eslint.config.": "eslint's configuration (code it runs)", ".prettierrc": "prettier's configuration (plugins are code it runs)",
		"prettier.config.": "prettier's configuration (code it runs)",
		".golangci.":       "golangci-lint's configuration (where it writes its report; custom linters are plugins it loads)",
		// Red team 13b, finding 13: the test runners' and their
		// transpilers' configuration (globalSetup, setupFiles, plugins,
		// transforms are code they run before any test).
		"jest.config.":      "jest's configuration (globalSetup, setupFiles, transforms are code it runs)",
		"vitest.config.":    "vitest's configuration (globalSetup, setupFiles, plugins are code it runs)",
		"vitest.workspace.": "vitest's workspace (the configurations it loads)", "vitest.projects.": "vitest's projects (the configurations it loads)",
		"vite.config.":       "vite's configuration, which vitest loads (plugins are code it runs)",
		"babel.config.":      "babel's configuration (plugins and presets are code jest's transform runs)",
		".babelrc":           "babel's configuration (plugins and presets are code jest's transform runs)",
		".mocharc":           "mocha's configuration (require, loader: modules it loads)",
		"ava.config.":        "ava's configuration (require: modules it loads)",
		"playwright.config.": "playwright's configuration (globalSetup, webServer commands)"}
	protectedSuffixes = map[string]string{".code-workspace": "the editor's tasks and settings (tasks run on opening the workspace)",
		// red team 23a, finding 2: python loads a .pyc whose header matches
		// the source's time and size instead of the source
		".pyc": "compiled Python that import loads instead of the source beside it", ".pyo": "compiled Python that import loads instead of the source beside it",
		".sublime-project": "the editor's build systems (commands)"}
)

// protectedNames are single files that run code or steer a tool.
var protectedNames = map[string]string{
	".mcp.json": "the MCP servers the agent CLIs start", ".gitattributes": "git filters and diff drivers (they run programs)",
	".gitmodules": "submodule URLs and update commands", ".gitconfig": "git's configuration", ".lfsconfig": "git-lfs's configuration",
	".envrc": "direnv's script, run on entering the folder", ".npmrc": "npm's configuration (script-shell, registries, tokens)",
	".yarnrc": "yarn's configuration", ".yarnrc.yml": "yarn's configuration (yarnPath runs a file)", ".pnpmfile.cjs": "pnpm's hooks",
	".pre-commit-config.yaml": "pre-commit's hooks", "lefthook.yml": "lefthook's git hooks", "lefthook.yaml": "lefthook's git hooks",
	".lefthook.yml": "lefthook's git hooks", ".gitlab-ci.yml": "CI pipelines", ".travis.yml": "CI pipelines",
	"azure-pipelines.yml": "CI pipelines", "bitbucket-pipelines.yml": "CI pipelines", ".drone.yml": "CI pipelines",
	"jenkinsfile": "CI pipelines", ".tool-versions": "the tool versions asdf/mise install and run", "mise.toml": "mise's tasks and hooks",
	".mise.toml": "mise's tasks and hooks", ".exrc": "vim's startup commands", ".nvimrc": "vim's startup commands",
	".nvim.lua": "neovim's startup code", ".vimrc": "vim's startup commands", ".dir-locals.el": "emacs's per-folder code",
	"permissions.yaml": "teamlead's permission policy", "team.yaml": "teamlead's team (the commands it starts)",
	"answerers.yaml": "teamlead's answerers", "consultations.yaml": "teamlead's consultations", "presets.yaml": "teamlead's presets (the commands it starts)",
	".bashrc": "a shell's startup script", ".bash_profile": "a shell's startup script", ".profile": "a shell's startup script",
	".zshrc": "a shell's startup script", ".zshenv": "a shell's startup script", ".zprofile": "a shell's startup script",
	"pip.conf": "pip's configuration (index, trusted hosts)", ".pypirc": "package upload credentials",
	".aider.conf.yml": "Aider's configuration (the commands it runs)", ".aider.conf.yaml": "Aider's configuration (the commands it runs)",
	".bazelrc": "bazel's options (--run_under, --workspace_status_command run programs)", "user.bazelrc": "bazel's options (--run_under runs a program)",
	".bazeliskrc": "bazelisk's settings (the URL of the bazel it downloads and runs)", ".gitpod.yml": "the commands a Gitpod workspace runs",
	"claude.md": "the instructions every Claude Code session here reads", "claude.local.md": "the instructions every Claude Code session here reads",
	"agents.md": "the instructions every Codex session here reads", "gemini.md": "the instructions every Gemini CLI session here reads",
	".cursorrules": "the instructions the editor's agent reads", ".windsurfrules": "the instructions the editor's agent reads",
	".clinerules": "the instructions the editor's agent reads", "copilot-instructions.md": "the instructions Copilot reads",
	".replit":         "the commands the workspace runs",
	".woodpecker.yml": "CI pipelines", ".woodpecker.yaml": "CI pipelines", "codeowners": "who must review a change",
	"agent.md": "the instructions an agent CLI here reads (Amp)", "qwen.md": "the instructions every Qwen Code session here reads",
	"crush.md": "the instructions an agent CLI here reads (Crush)", ".goosehints": "the instructions Goose reads",
	".rules": "the instructions the editor's agent reads (Zed)", ".roorules": "the instructions the editor's agent reads",
	".augment-guidelines": "the instructions the editor's agent reads", "opencode.json": "an agent CLI's settings (its commands and MCP servers)",
	"opencode.jsonc": "an agent CLI's settings (its commands and MCP servers)", ".crush.json": "an agent CLI's settings (its MCP servers)",
	"crush.json":   "an agent CLI's settings (its MCP servers)",
	"netlify.toml": "the deploy's build command, run with the hosting's secrets", "vercel.json": "the deploy's build commands, run with the hosting's secrets",
	"fly.toml": "the deploy's release command", "render.yaml": "the deploy's build commands", "railway.json": "the deploy's build commands",
	"railway.toml":   "the deploy's build commands",
	"rust-toolchain": "the toolchain cargo runs (path = any folder)", "rust-toolchain.toml": "the toolchain cargo runs (path = any folder)",
	"go.work":            "the modules go builds from (use and replace reach any folder)",
	"lefthook-local.yml": "lefthook's git hooks", "lefthook-local.yaml": "lefthook's git hooks", ".lefthook-local.yml": "lefthook's git hooks",
	".lefthook-local.yaml": "lefthook's git hooks", ".lefthook.yaml": "lefthook's git hooks",
	"shell.nix": "the nix shell direnv's use nix evaluates (shellHook runs in the human's shell)", "flake.nix": "the flake direnv's use flake evaluates (shellHook)",
	"flake.lock": "the inputs the flake evaluates", "default.nix": "the nix expression direnv's use nix evaluates", "devbox.json": "devbox's init_hook and scripts",
	".envrc.local": "direnv's script (sourced by .envrc)", ".devcontainer.json": "the dev container's commands (initializeCommand runs on the host)",
	"mise.local.toml": "mise's tasks and hooks", ".mise.local.toml": "mise's tasks and hooks", ".rtx.toml": "mise's tasks and hooks",
	"agents.override.md": "the instructions every Codex session here reads first", ".roomodes": "an editor agent's modes",
	".continuerc.json": "an editor agent's settings (MCP servers)", ".aider.model.settings.yml": "Aider's model settings (API base, headers)",
	".dir-locals-2.el": "emacs's per-folder code", ".pdbrc": "pdb's startup commands", ".rprofile": "R's startup code",
	".cirrus.yml": "CI pipelines", ".cirrus.star": "CI pipelines", "appveyor.yml": "CI pipelines", ".appveyor.yml": "CI pipelines",
	"bitrise.yml": "CI pipelines", "codemagic.yaml": "CI pipelines", ".zuul.yaml": "CI pipelines", ".zuul.yml": "CI pipelines",
	"zuul.yaml": "CI pipelines", ".drone.star": "CI pipelines", "buildspec.yml": "CI pipelines (CodeBuild)", "buildspec.yaml": "CI pipelines (CodeBuild)",
	"cloudbuild.yaml": "CI pipelines (Cloud Build)", "cloudbuild.yml": "CI pipelines (Cloud Build)", "cloudbuild.json": "CI pipelines (Cloud Build)",
	"earthfile": "CI builds (Earthly)", "action.yml": "a GitHub Action (runs in CI with the repository's secrets)",
	"action.yaml": "a GitHub Action (runs in CI with the repository's secrets)", ".pnp.cjs": "yarn's loader (run by every node process yarn starts)",
	".pnp.loader.mjs": "yarn's loader (run by every node process yarn starts)", "pnpm-workspace.yaml": "pnpm's settings (scriptShell, pnpmfile, nodeOptions)",
	".pnpmfile.mjs": "pnpm's hooks",
	// Red team 11b: the configuration the allowed linters, type checkers
	// and test runners read from the folder: plugins and executables they
	// run (mypy's plugins=, flake8's local-plugins, pytest's addopts = -p),
	// files they read or write (tsconfig.json's outDir, mypy's files=),
	// and ignore files whose !negations make rg search .env (findings 3,
	// 5, 11).
	"mypy.ini": "mypy's configuration (plugins are code it runs)", ".mypy.ini": "mypy's configuration (plugins are code it runs)",
	"setup.cfg": "the configuration of mypy, flake8 and pytest (plugins, addopts)", "tox.ini": "the configuration of tox, flake8 and pytest (commands, plugins)",
	".flake8": "flake8's configuration (local-plugins are code it runs)", "pytest.ini": "pytest's configuration (addopts can load plugins)",
	".pytest.ini": "pytest's configuration (addopts can load plugins)", "conftest.py": "pytest's plugin file, loaded before any test is collected",
	"jsconfig.json": "the TypeScript compiler's project (where it writes)",
	".ignore":       "the ignore rules of rg and other searchers (a !negation searches hidden and ignored files)",
	".rgignore":     "rg's ignore rules (a !negation searches hidden and ignored files)", ".agignore": "ag's ignore rules",
	".prettierignore": "prettier's ignore rules", ".eslintignore": "eslint's ignore rules",
	// Red team 12b: the same tools' configuration in pyproject.toml
	// ([tool.mypy] plugins, [tool.pytest.ini_options] addopts) and ruff's
	// (output-file) (findings 2, 3).
	"pyproject.toml": "the configuration of mypy, pytest, black and ruff (plugins, addopts, output files)",
	"ruff.toml":      "ruff's configuration (output-file)", ".ruff.toml": "ruff's configuration (output-file)",
	// Red team 13b, findings 13 and 20: coverage.py's plugins, pytest 9's
	// TOML files (addopts = ["-p", "evil"]), OpenCode's legacy settings,
	// lazy.nvim's per-folder specs (code neovim runs on opening the folder).
	".coveragerc": "coverage.py's configuration (plugins are code it runs under pytest --cov)",
	"pytest.toml": "pytest's configuration (addopts can load plugins)", ".pytest.toml": "pytest's configuration (addopts can load plugins)",
	".opencode.json": "an agent CLI's settings (OpenCode's legacy file: its commands and MCP servers)",
	".lazy.lua":      "neovim's per-folder plugin specs (lazy.nvim runs them on opening the folder)",
	// red team 23a, finding 4: editors' per-folder files that start programs
	".ycm_extra_conf.py": "YouCompleteMe's per-project Python (vim runs it on opening a file)", ".lvimrc": "vim's per-folder script (localvimrc runs it)",
	"coc-settings.json": "coc.nvim's settings (its language servers are commands vim starts)",
	// red team 22a, finding 10: more git hook managers, and nextest's
	// setup scripts
	".overcommit.yml": "overcommit's git hooks", ".overcommit.yaml": "overcommit's git hooks",
	"trunk.yaml": "trunk's actions (git hooks among them)", "nextest.toml": "cargo nextest's configuration (its setup scripts run before the tests)",
	// version files: which interpreter the version manager's shims run
	// (red team 20a, finding 9)
	".python-version": "the python pyenv's shims run here", ".nvmrc": "the node nvm runs here",
	".node-version": "the node the version manager runs here", ".ruby-version": "the ruby the version manager runs here",
	".go-version": "the go goenv runs here", ".java-version": "the java jenv runs here",
}

// protectedFile reports why writing abs (an absolute path, links already
// followed) changes what runs: git's files in any letter case, the agent
// CLIs' settings, teamlead's own files, CI, direnv, husky, editor configs.
func (e Env) protectedFile(abs string) (string, bool) {
	for _, p := range e.Protected {
		if p != "" && within(abs, path.Clean(p)) {
			return "teamlead's own file " + p, true
		}
	}
	segs := splitSegs(abs)
	if progressFile(segs) {
		return "", false
	}
	for i, s := range segs {
		l := strings.ToLower(s)
		if why, ok := protectedDirs[l]; ok {
			return why, true // the folder itself too: moved in whole, or away (.git is also the file of a worktree)
		}
		if l == ".github" {
			if i+1 == len(segs) {
				return "CI workflows (they run with the repository's secrets)", true
			}
			switch n := strings.ToLower(segs[i+1]); {
			case n == "workflows" || n == "actions":
				return "CI workflows (they run with the repository's secrets)", true
			case protectedGitHub[n]:
				return "GitHub's " + segs[i+1] + " (reviews, dependency updates with registry credentials, or the agents' instructions)", true
			}
		}
	}
	for i := 0; i+1 < len(segs); i++ {
		if why, ok := protectedSubDirs[[2]string{strings.ToLower(segs[i]), strings.ToLower(segs[i+1])}]; ok {
			return why, true
		}
	}
	if len(segs) == 0 {
		return "", false
	}
	base := strings.ToLower(segs[len(segs)-1])
	if len(segs) > 1 && base == "config.toml" && strings.ToLower(segs[len(segs)-2]) == "mise" {
		return "mise's tasks and hooks", true // mise/config.toml
	}
	if (strings.HasPrefix(base, "mise.") || strings.HasPrefix(base, ".mise.")) && strings.HasSuffix(base, ".toml") {
		return "mise's tasks and hooks", true // mise.dev.toml, .mise.local.toml
	}
	if why, ok := protectedNames[base]; ok {
		return why, true
	}
	for p, why := range protectedPrefixes {
		if strings.HasPrefix(base, p) {
			return why, true
		}
	}
	for x, why := range protectedSuffixes {
		if strings.HasSuffix(base, x) {
			return why, true
		}
	}
	if why, ok := e.rootProtected(abs); ok {
		return why, true
	}
	if why, ok := e.bareRepoFile(segs); ok {
		return why, true
	}
	return e.gitProgramFile(abs)
}

// bareRepoFile reports a write that makes or changes a git repository
// other than .git: a folder holding HEAD (with objects and refs) is one to
// git, and its config's core.pager or hooks run when the human later runs
// git in it (red team 20a, finding 7). HEAD is protected by name; any file
// in a folder inside the workdir that holds a HEAD is too. The HEAD is
// read (not only looked at) so that a part of the same request writing it
// first makes the judgement stale.
func (e Env) bareRepoFile(segs []string) (string, bool) {
	if strings.EqualFold(segs[len(segs)-1], "HEAD") {
		return "a git repository's HEAD (a folder with HEAD, objects and refs is a repository: its config runs programs when git runs there)", true
	}
	if e.FS == nil {
		return "", false
	}
	for i := len(segs) - 1; i > 0; i-- {
		dir := "/" + strings.Join(segs[:i], "/")
		if !e.strictlyInside(dir) {
			break
		}
		if _, err := e.FS.ReadFile(dir + "/HEAD"); err == nil {
			return "a git repository's files (" + dir + " holds a HEAD: its config and hooks run programs when git runs there)", true
		}
	}
	return "", false
}

// protectedHit is the floor hit for a write to a protected file, or nil.
func (e Env) protectedHit(abs, by string) []hit {
	if why, ok := e.protectedFile(abs); ok {
		return []hit{{id: FloorProtectedFile, detail: by + " writes " + abs + " (" + why + ")"}}
	}
	return nil
}

// dependencyCode reports a file of installed packages' code, which the
// tools run under a trusted name, and why: under node_modules (npx and
// the tests run it; the ninth red team wrote node_modules/typescript/bin/tsc,
// the target of node_modules/.bin/tsc), or in a Python virtual
// environment (.venv/, venv/, or any folder holding a pyvenv.cfg): its
// site-packages' .pth files run at every start of its python, its
// packages are what pytest and mypy import, pyvenv.cfg says which python
// it runs (red team 13b, finding 12). Writing it asks, by Edit or by the
// shell (red team 13b, finding 11); deleting the folder does not.
func (e Env) dependencyCode(abs string) (string, bool) {
	segs := splitSegs(abs)
	for i, s := range segs {
		// any letter case: Node_modules is node_modules on a disk that
		// ignores case (red team 21a, finding 11)
		if strings.EqualFold(s, "node_modules") && (i+1 >= len(segs) || !strings.EqualFold(segs[i+1], ".cache")) { // tools' caches are not code
			return "code of an installed dependency: npx, npm scripts and the tests run it (node_modules/.bin links into it)", true
		}
		if l := strings.ToLower(s); (l == ".venv" || l == "venv") && i+1 < len(segs) {
			return "a Python virtual environment (its .pth files and packages run at every start of its python)", true
		}
	}
	if e.FS == nil {
		return "", false
	}
	for d := path.Dir(abs); e.strictlyInside(d); d = path.Dir(d) {
		if fi, err := e.FS.Lstat(path.Join(d, "pyvenv.cfg")); err == nil && fi.Mode().IsRegular() {
			return "a Python virtual environment (" + d + " holds pyvenv.cfg: its .pth files and packages run at every start of its python)", true
		}
	}
	return "", false
}

// dependencyHit is the floor hit for a write to installed packages' code, or nil.
func (e Env) dependencyHit(abs, by string) []hit {
	if why, ok := e.dependencyCode(abs); ok {
		return []hit{{id: FloorProtectedFile, detail: by + " writes " + abs + ", " + why}}
	}
	return nil
}

// progressFile reports the workflow progress file the protocol's primer
// tells agents to keep, .claude/state/progress.json (progress-<agent>.json
// in a folder agents share; internal/progress): the console reads it, no
// agent CLI does, so writing it steers nothing. Only the file itself, as
// written (links already followed), not .claude/state.
func progressFile(segs []string) bool {
	n := len(segs)
	if n < 3 || segs[n-3] != ".claude" || segs[n-2] != "state" {
		return false
	}
	b := segs[n-1]
	return b == "progress.json" || strings.HasPrefix(b, "progress-") && strings.HasSuffix(b, ".json") && !strings.ContainsAny(b, "/\\")
}
