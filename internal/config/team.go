package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/detect"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/worktree"
	"go.yaml.in/yaml/v3"
)

// Team is a loaded team file: the agents to run and how to talk to them.
type Team struct {
	// Read are the sha256 (hex) of the bytes this load parsed, by file:
	// the team file and the policy ("" for one that was not there). The
	// console holds them against what its guard accepted, so that a file
	// changed between the two looks is never used (red team 9a raced them).
	Read map[string]string `yaml:"-"`
	// own are the bytes of teamlead's own files as this load read them
	// (nil for one that was not there): what the console uses is what was
	// hashed (OwnData).
	own map[string][]byte
	// Agents are the team members, in file order.
	Agents []Agent `yaml:"agents"`
	// Presets adds or overrides presets by name for this team.
	Presets map[string]Preset `yaml:"presets"`
	// Lead tunes the Team Lead's own rules.
	Lead Lead `yaml:"lead"`
	// UI configures the console.
	UI UI `yaml:"ui"`
	// Questions configures question routing (seed 004).
	Questions Questions `yaml:"questions"`
	// Progress configures the watching of workflow progress files (seed 003).
	Progress Progress `yaml:"progress"`
	// Consultations configures mandatory consultations (seed 002) and
	// query files (seed 000).
	Consultations Consultations `yaml:"consultations"`
	// Permissions configures permission requests and their policy.
	Permissions Permissions `yaml:"permissions"`
	// Isolation is every agent's default: auto (a sandbox of its own — user, PID and mount namespaces — where the kernel allows one, else a user namespace alone, so that no process it starts can act as the human), sandbox (required), userns (a user namespace alone, required) or none.
	Isolation string `yaml:"isolation"`
	// Worktrees configures the agents' git worktrees.
	Worktrees Worktrees `yaml:"worktrees"`
	// Budget is every agent's default budget (an agent's own budget replaces it).
	Budget Budget `yaml:"budget"`
	// Price is what a million tokens cost, to estimate an agent's spending where its CLI writes no cost of its own.
	Price Price `yaml:"price"`
	// Bus says where the team's bus runs: on the console's store alone (no bus section), or also on NATS JetStream.
	Bus Bus `yaml:"bus"`

	// File is the absolute path the team was loaded from.
	File string `yaml:"-"`
	// Resolved holds each agent's preset after defaults were applied, by agent name.
	Resolved map[string]Preset `yaml:"-"`
}

// Agent is one team member.
type Agent struct {
	// Name is the address used in to:/from:.
	Name string `yaml:"name"`
	// Role is the agent's role (pm, architect, developer, qa, ... or any word); role:<role> addresses every agent with it.
	Role string `yaml:"role"`
	// Command is the argv to run; no shell unless the user writes one. A relative path with a slash is taken from the config file's folder.
	Command []string `yaml:"command"`
	// Dir is the working directory, relative to the config file; created if missing.
	Dir string `yaml:"dir"`
	// Env adds environment variables.
	Env map[string]string `yaml:"env"`
	// Preset names how to talk to this CLI (claude-code, codex, gemini, copilot, opencode, aider, plain).
	Preset string `yaml:"preset"`
	// Parse is stream (line output) or screen (full-screen CLIs); the preset gives the default.
	Parse string `yaml:"parse"`
	// Restart is never, on-failure or always (with backoff).
	Restart string `yaml:"restart"`
	// Cols and Rows set the PTY size (default 120x40).
	Cols int `yaml:"cols"`
	// Rows is the PTY height.
	Rows int `yaml:"rows"`
	// Scrollback is how many lines of the agent's screen are kept above it (default 10000).
	Scrollback int `yaml:"scrollback"`
	// Capabilities are what the agent can answer (answerers.yaml capability: picks among them).
	Capabilities []string `yaml:"capabilities"`
	// Isolation overrides the team's isolation for this agent: auto, sandbox, userns or none.
	Isolation string `yaml:"isolation"`
	// Host names the node (`teamlead node --name NAME`) that runs the
	// agent on another machine; "" runs it on the console's.
	Host string `yaml:"host"`
	// Budget is what the agent may spend this run before every action it asks for goes to you (default: the team's budget).
	Budget Budget `yaml:"budget"`
	// Price is what a million tokens cost for this agent's model, where its CLI writes no cost of its own (default: the team's price).
	Price Price `yaml:"price"`
	// Worktree runs the agent in a git worktree of its own: true (branch teamlead/<name>), a branch name, or false; default: the team's worktrees.default. Its dir names the repository (or a folder in it).
	Worktree string `yaml:"worktree"`
	// Branch is the agent's worktree branch once resolved ("" = no worktree).
	Branch string `yaml:"-"`
	// Repo is the folder the team file names as the agent's dir, when it works in a worktree (Dir is then the worktree's).
	Repo string `yaml:"-"`
	// Confined is how its sandbox keeps a worktree agent to its worktree (worktree.Tree.Confined).
	Confined []worktree.Bind `yaml:"-"`
}

// Progress configures the watching of progress files.
type Progress struct {
	// Paths are progress files to watch besides each agent's own
	// (.claude/state/progress.json, or progress-<agent>.json in a folder
	// agents share), relative to the team file.
	Paths []string `yaml:"paths"`
	// Stall is how long an in_progress workflow may go without a change before it is flagged as stalled (default 10m; 0 keeps the default).
	Stall time.Duration `yaml:"stall"`
}

// Questions configures question routing.
type Questions struct {
	// Answerers is the routing file (seed 004 format), relative to the team file; default answerers.yaml beside it when it exists.
	Answerers string `yaml:"answerers"`
	// Expire is how long answered and timed-out questions are kept (default 720h, 30 days); pending ones never expire.
	Expire time.Duration `yaml:"expire"`
	// BlockOn lists the urgencies that mark the asker blocked until answered (default [blocking]).
	BlockOn []string `yaml:"block_on"`
	// Tools are the tool/<name> answerers: a command that reads the question on stdin and writes the answer.
	Tools map[string]Tool `yaml:"tools"`
	// Notify maps notify URLs of answerers.yaml (slack://x, webhook://y) to the HTTP endpoints that receive them as JSON.
	Notify map[string]string `yaml:"notify"`
}

// Tool is a tool answerer.
type Tool struct {
	// Command is the argv; the question arrives on stdin, the answer is its stdout.
	Command []string `yaml:"command"`
	// Timeout bounds a run (default 1m).
	Timeout time.Duration `yaml:"timeout"`
}

// UI configures the console.
type UI struct {
	// Theme is a built-in theme name (dark, light, high-contrast) or a .yaml file.
	Theme string `yaml:"theme"`
	// Keys rebinds actions by name, e.g. {quit: [ctrl+q]}.
	Keys map[string][]string `yaml:"keys"`
	// Notify is a command run when something starts waiting for the human; the title and the text are appended as arguments (e.g. [notify-send, -a, teamlead]).
	Notify []string `yaml:"notify"`
}

// Lead configures the Team Lead's rules.
type Lead struct {
	// Delegate is the role that receives coding and test requests the Team Lead refuses (default developer).
	Delegate string `yaml:"delegate"`
	// RelayRate is flood control: how many blocks per second each agent's output is taken at (a token bucket per sending agent, default 10); the excess waits, in order, and is never dropped. A negative rate turns flood control off.
	RelayRate float64 `yaml:"relay_rate"`
	// RelayBurst is how many blocks an agent may send at once before RelayRate applies (default 50).
	RelayBurst int `yaml:"relay_burst"`
}

// Flood control defaults (lead.relay_rate, lead.relay_burst).
const (
	DefaultRelayRate  = 10
	DefaultRelayBurst = 50
)

// Preset is how to talk to one kind of agent CLI.
type Preset struct {
	// Submit is the key sequence that submits typed text.
	Submit string `yaml:"submit"`
	// Newline separates lines when text is typed line by line.
	Newline string `yaml:"newline"`
	// SubmitDelay is the pause between the text and the submit key.
	SubmitDelay time.Duration `yaml:"submit_delay"`
	// LineDelay is the pause between lines typed line by line.
	LineDelay time.Duration `yaml:"line_delay"`
	// SubmitRetries is how many times the submit key is pressed again while typed text still waits in the CLI's input box (read off its screen at the cursor); 0 checks nothing.
	SubmitRetries int `yaml:"submit_retries"`
	// Resume are the arguments that start the CLI back into a
	// conversation, put right after its program, {session} replaced by the
	// id its hooks last gave (Claude Code: ["--resume", "{session}"]).
	Resume []string `yaml:"resume"`
	// SessionFile is where a CLI whose hooks give no conversation id
	// (Codex) records its conversations, so that Resume can name one.
	SessionFile *SessionFile `yaml:"session_file"`
	// Acks is how relay acknowledgements reach the agent: "prompt" typed as
	// a message of their own (the default, for programs that read lines),
	// or "with-next" waiting for the next text typed into the agent and
	// going in with it (a CLI spends a model turn on each prompt).
	Acks string `yaml:"acks"`
	// SubmitPending are regexes for the input row when the CLI shows typed text as a placeholder (a long paste as "[Pasted text #1 +7 lines]"): such a row counts as text still waiting.
	SubmitPending []string `yaml:"submit_pending"`
	// Paste is auto (bracketed paste when the agent enabled it), always or never.
	Paste string `yaml:"paste"`
	// ReadyTimeout is how long typing into a new process waits for its first output.
	ReadyTimeout time.Duration `yaml:"ready_timeout"`
	// Parse is the default parse mode: stream or screen.
	Parse string `yaml:"parse"`
	// Restart is the default restart policy.
	Restart string `yaml:"restart"`
	// Command is the agent's command when the team file gives none.
	Command []string `yaml:"command"`
	// Permission is how to read the CLI's permission dialog off its screen (internal/detect); none when empty.
	Permission *detect.PermissionSpec `yaml:"permission"`
	// State is how to tell the CLI busy, idle or waiting from its screen (internal/detect).
	State *detect.StateSpec `yaml:"state"`
	// Primer is how to hand the agent the protocol primer.
	Primer *PresetPrimer `yaml:"primer"`
	// MCP is how the CLI is given teamlead's tools (teamlead mcp); none when empty.
	MCP *PresetMCP `yaml:"mcp"`
}

// PresetMCP is how an agent CLI is given teamlead's MCP server, in
// console-owned configuration only (never the person's own settings).
type PresetMCP struct {
	// Flag are arguments appended to the command: "{mcp_config}" is replaced by a JSON file the console writes for the agent ({"mcpServers": {"teamlead": …}}, as Claude Code's --mcp-config takes), "{teamlead}" by the teamlead executable, "{socket}" by the console's socket and "{agent}" by the agent's name (for CLIs configured by flags, e.g. Codex's -c).
	Flag []string `yaml:"flag"`
	// Settings says the console's own settings file for the CLI lists the server (Gemini CLI's system defaults, which teamlead writes).
	Settings bool `yaml:"settings"`
	// Env are environment variables set for the CLI, with Flag's placeholders replaced (OpenCode's OPENCODE_CONFIG_CONTENT, a configuration layer of its own above the person's files); one the agent's env in the team file or the console's environment sets is left alone.
	Env map[string]string `yaml:"env"`
	// Names is how the CLI shows a tool of the server to its model, "{tool}" standing for the tool's name (mcp__teamlead__{tool}); the primer names the tools so. Empty: the primer gives the bare names and the usual forms.
	Names string `yaml:"names"`
}

// Any reports whether the preset gives the CLI teamlead's tools in any way.
func (m *PresetMCP) Any() bool {
	return m != nil && (len(m.Flag) > 0 || m.Settings || len(m.Env) > 0)
}

// hostName is a node's name (an agent's host:).
var hostName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)

// SessionFile says where a CLI records its conversations: files matching
// Glob (relative to the agent's home), each a JSON-lines file whose first
// line holds the conversation's id and working folder at the dotted paths
// ID and Cwd; or, with Format opencode-db, OpenCode's SQLite database,
// whose session table names each conversation's id and folder.
type SessionFile struct {
	// Glob matches the files, relative to the agent's home.
	Glob string `yaml:"glob"`
	// ID is the dotted path of the conversation's id in a file's first line.
	ID string `yaml:"id"`
	// Cwd is the dotted path of its working folder in that line.
	Cwd string `yaml:"cwd"`
	// Format is the files' format: "" (JSON lines) or opencode-db.
	Format string `yaml:"format"`
	// Tokens says what the session spent, in its CLI's form: codex (a
	// rollout's token_count events), copilot (Copilot CLI's usage
	// records), opencode (the database's totals); "" reads none.
	Tokens string `yaml:"tokens"`
}

// SessionFile.Format and SessionFile.Tokens values.
const (
	SessionJSONL      = ""
	SessionOpenCodeDB = "opencode-db"
	TokensCodex       = "codex"
	TokensCopilot     = "copilot"
	TokensOpenCode    = "opencode"
)

// check names what is wrong with f, "" when nothing: an unknown format or
// token form, or one that does not go with the format.
func (f *SessionFile) check() (field, msg string) {
	switch {
	case f.Format != SessionJSONL && f.Format != SessionOpenCodeDB:
		return "format", fmt.Sprintf("%q is not a session file format; leave it out (JSON lines) or use %s", f.Format, SessionOpenCodeDB)
	case f.Format == SessionOpenCodeDB && f.Tokens != "" && f.Tokens != TokensOpenCode:
		return "tokens", fmt.Sprintf("OpenCode's database holds its own token totals: use %s, or leave tokens out", TokensOpenCode)
	case f.Format == SessionJSONL && f.Tokens != "" && f.Tokens != TokensCodex && f.Tokens != TokensCopilot:
		return "tokens", fmt.Sprintf("%q is not a form of token counts in JSON lines; use %s (Codex's token_count events) or %s (Copilot CLI's usage records), or leave it out", f.Tokens, TokensCodex, TokensCopilot)
	}
	return "", ""
}

// Preset.Acks values.
const (
	AcksPrompt   = "prompt"
	AcksWithNext = "with-next"
)

// SubmitPendingRE compiles SubmitPending.
func (p Preset) SubmitPendingRE() ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, s := range p.SubmitPending {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// maxSubmitRetries bounds Preset.SubmitRetries: a CLI that keeps the text
// after a few presses will not take it on the next one either.
const maxSubmitRetries = 5

// PresetPrimer is how an agent CLI takes the protocol primer: a
// command-line flag, an instructions file in its working directory, or
// the first message typed into it. Give one.
type PresetPrimer struct {
	// Flag are arguments appended to the command, "{primer}" replaced by the primer's text (e.g. [--append-system-prompt, "{primer}"]).
	Flag []string `yaml:"flag"`
	// File is a file in the agent's working directory the primer is written to, which the CLI reads at start (AGENTS.md, GEMINI.md).
	File string `yaml:"file"`
	// Message types the primer as the agent's first message.
	Message bool `yaml:"message"`
}

type presetFile struct {
	Presets map[string]Preset `yaml:"presets"`
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// branchRE are the branch names a worktree may take: git's rules, kept
// narrow (no leading -, no spaces or control characters).
var branchRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

// Budget is a spending limit for one run of an agent; zero fields set no limit.
type Budget struct {
	// Tokens is the most tokens (input, cached and output) it may use.
	Tokens int64 `yaml:"tokens"`
	// USD is the most it may cost: its CLI's own estimate (Claude Code writes one), else the team's price.
	USD float64 `yaml:"usd"`
}

// Set reports whether b limits anything.
func (b Budget) Set() bool { return b.Tokens > 0 || b.USD > 0 }

// Price is what a million tokens cost, in USD.
type Price struct {
	// Input is a million input tokens.
	Input float64 `yaml:"input"`
	// Output is a million output tokens.
	Output float64 `yaml:"output"`
	// CacheRead is a million input tokens read from the cache.
	CacheRead float64 `yaml:"cache_read"`
}

// Worktrees configures the agents' git worktrees.
type Worktrees struct {
	// Default puts every agent in a worktree of its own unless it says worktree: false.
	Default bool `yaml:"default"`
	// Root is the folder the worktrees are made in, relative to the team file (default: <repository>-worktrees beside each repository).
	Root string `yaml:"root"`
}

// reserved addresses cannot be agent names.
var reserved = map[string]bool{"team-lead": true, "human": true, "all": true}

// LoadTeam reads and validates a team file and the files it uses
// (consultations.yaml, permissions.yaml). The error reports every problem
// found: an errors.Join of *FieldError (and *permit.PolicyError), each
// naming its file, line and field.
func LoadTeam(path string) (*Team, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read team file: %v (pass --config FILE or set TEAMLEAD_CONFIG)", ErrInvalid, err)
	}
	return parseTeam(path, abs, data)
}

// ReadTeam is LoadTeam for `teamlead validate`: it does not stop at the
// first problem, and returns the team as far as it could be read (nil when
// the file cannot be read) with every problem found in it and in the
// files it uses, sorted by file and line. It also reports what cannot work
// on this machine: an agent's program that is not installed, a working
// folder that is a file; and warns of what may be a mistake: a folder that
// does not exist yet, permission rules for an agent the team does not
// have (*Warning).
func ReadTeam(path string) (team *Team, errs, warnings []error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, []error{err}, nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, []error{fmt.Errorf("%w: cannot read team file: %v (pass --config FILE or set TEAMLEAD_CONFIG)", ErrInvalid, err)}, nil
	}
	p := readTeam(path, abs, data, true)
	return p.team, p.list, p.warnings
}

// parseTeam decodes and validates the team file text data; path is how to
// name the file in errors, abs its absolute path.
func parseTeam(path, abs string, data []byte) (*Team, error) {
	p := readTeam(path, abs, data, false)
	if len(p.list) > 0 {
		return nil, errors.Join(p.list...)
	}
	p.team.noteRead(abs, data)
	// Every own file is read now, once, so that all of them are held
	// against the guard (one missing now and made later is not used).
	for _, f := range p.team.OwnFiles() {
		if _, seen := p.team.Read[filepath.Clean(f)]; !seen {
			_, _ = p.team.OwnData(f)
		}
	}
	return p.team, nil
}

// OwnData returns the content of one of teamlead's own files (answerers,
// consultations, a theme) as this load read it, reading it now if it did
// not: each is read once, its hash recorded in Read, so that the console
// never uses bytes other than those held against what the guard accepted
// (red team 9a, finding 4: they were read again after the check). A file
// that is not there is fs.ErrNotExist.
func (t *Team) OwnData(path string) ([]byte, error) {
	path = filepath.Clean(path)
	if data, ok := t.own[path]; ok {
		if data == nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
		return data, nil
	}
	data, err := fsutil.ReadRegular(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, err
	case data == nil:
		data = []byte{}
	}
	if t.own == nil {
		t.own = map[string][]byte{}
	}
	t.own[path] = data
	t.noteRead(path, data)
	if data == nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return data, nil
}

// noteRead records the hash of the bytes parsed from file (nil: no file).
func (t *Team) noteRead(file string, data []byte) {
	if t.Read == nil {
		t.Read = map[string]string{}
	}
	if data == nil {
		t.Read[filepath.Clean(file)] = ""
		return
	}
	sum := sha256.Sum256(data)
	t.Read[filepath.Clean(file)] = hex.EncodeToString(sum[:])
}

// readTeam is parseTeam going on after a problem, to find them all. When
// the file is not YAML, the files beside it are still checked. With
// machine, the checks of check.go run too.
func readTeam(path, abs string, data []byte, machine bool) *problems {
	t := &Team{}
	p := &problems{team: t}
	root, errs := decodeAll(path, data, t)
	p.add(errs...)
	t.File = abs
	presets, err := builtinPresets()
	if err != nil {
		p.list = append(p.list, err)
		return p
	}
	for _, name := range sortedKeys(t.Presets) {
		pr := t.Presets[name]
		if pr.SubmitRetries < 0 || pr.SubmitRetries > maxSubmitRetries {
			p.add(&FieldError{File: path, Line: lineOf(child(child(root, "presets"), name), "submit_retries"),
				Field: "presets." + name + ".submit_retries", Msg: fmt.Sprintf("keep between 0 (no check) and %d", maxSubmitRetries)})
		}
		if pr.Acks != "" && pr.Acks != AcksPrompt && pr.Acks != AcksWithNext {
			p.add(&FieldError{File: path, Line: lineOf(child(child(root, "presets"), name), "acks"),
				Field: "presets." + name + ".acks", Msg: fmt.Sprintf("%q is not a way to deliver acknowledgements; use %s (typed as their own message) or %s (with the next text typed into the agent)", pr.Acks, AcksPrompt, AcksWithNext)})
		}
		if sf := pr.SessionFile; sf != nil {
			if field, msg := sf.check(); msg != "" {
				p.add(&FieldError{File: path, Line: lineOf(child(child(child(root, "presets"), name), "session_file"), field),
					Field: "presets." + name + ".session_file." + field, Msg: msg})
			}
		}
		if _, err := pr.SubmitPendingRE(); err != nil {
			p.add(&FieldError{File: path, Line: lineOf(child(child(root, "presets"), name), "submit_pending"),
				Field: "presets." + name + ".submit_pending", Msg: err.Error() + "; write Go regexp syntax"})
		}
		presets[name] = mergePreset(presets["plain"], pr)
	}
	t.validate(path, root, presets, p)
	if machine {
		t.checkMachine(path, root, p)
	}
	p.sort()
	return p
}

func builtinPresets() (map[string]Preset, error) {
	var pf presetFile
	if _, err := decodeStrict("configs/presets.yaml", configs.Presets, &pf); err != nil {
		return nil, err
	}
	out := map[string]Preset{}
	for name, p := range pf.Presets {
		out[name] = p
	}
	return out, nil
}

// mergePreset fills empty fields of p from base.
func mergePreset(base, p Preset) Preset {
	if p.Submit == "" {
		p.Submit = base.Submit
	}
	if p.Newline == "" {
		p.Newline = base.Newline
	}
	if p.Paste == "" {
		p.Paste = base.Paste
	}
	if p.Parse == "" {
		p.Parse = base.Parse
	}
	if p.Restart == "" {
		p.Restart = base.Restart
	}
	if len(p.Command) == 0 {
		p.Command = base.Command
	}
	if p.Permission == nil {
		p.Permission = base.Permission
	}
	if p.SubmitPending == nil {
		p.SubmitPending = base.SubmitPending
	}
	if p.State == nil {
		p.State = base.State
	}
	if p.Primer == nil {
		p.Primer = base.Primer
	}
	if p.MCP == nil {
		p.MCP = base.MCP
	}
	if p.Acks == "" {
		p.Acks = base.Acks
	}
	if p.Resume == nil {
		p.Resume = base.Resume
	}
	if p.SessionFile == nil {
		p.SessionFile = base.SessionFile
	}
	return p
}

// AgentDirs maps each agent's name to its working directory.
func (t *Team) AgentDirs() map[string]string {
	out := make(map[string]string, len(t.Agents))
	for _, a := range t.Agents {
		out[a.Name] = a.Dir
	}
	return out
}

func (t *Team) validate(file string, root *yaml.Node, presets map[string]Preset, p *problems) {
	base := filepath.Dir(t.File)
	if root != nil { // else the file is not YAML (reported): only the files beside it are checked
		t.validateAgents(file, root, presets, p)
		t.validateLead(file, root, p)
	}
	if t.Progress.Stall <= 0 {
		t.Progress.Stall = 10 * time.Minute
	}
	for i, q := range t.Progress.Paths {
		if !filepath.IsAbs(q) {
			t.Progress.Paths[i] = filepath.Join(base, q)
		}
	}
	p.add(t.validateConsultations(file, root, base)...)
	p.add(t.validatePermissions(file, root, base))
	t.validateQuestions(file, root, base, p)
	t.validateBus(file, root, base, p)
	if t.Worktrees.Root != "" && !filepath.IsAbs(t.Worktrees.Root) {
		t.Worktrees.Root = filepath.Join(base, t.Worktrees.Root)
	}
}

func (t *Team) validateAgents(file string, root *yaml.Node, presets map[string]Preset, p *problems) {
	items := child(root, "agents")
	if len(t.Agents) == 0 {
		p.add(&FieldError{File: file, Line: lineOf(root, "agents"), Field: "agents",
			Msg: "no agents; add at least one under agents: with name and command"})
		return
	}
	fail := func(i int, key, msg string) {
		var n *yaml.Node
		if items != nil && i < len(items.Content) {
			n = items.Content[i]
		}
		p.add(&FieldError{File: file, Line: lineOf(n, key), Field: fmt.Sprintf("agents[%d].%s", i, key), Msg: msg})
	}
	t.Resolved = map[string]Preset{}
	seen := map[string]int{}
	base := filepath.Dir(t.File)
	isolationReported := false
	for i := range t.Agents {
		a := &t.Agents[i]
		switch {
		case a.Name == "":
			fail(i, "name", "missing; every agent needs a name (its address in to:/from:)")
		case !nameRE.MatchString(a.Name) || reserved[a.Name] || strings.HasPrefix(a.Name, "role:"):
			fail(i, "name", fmt.Sprintf("%q is not a usable name: use lower-case letters, digits, '-', '_' or '.', and not team-lead, human or all", a.Name))
		default:
			if prev, dup := seen[a.Name]; dup {
				fail(i, "name", fmt.Sprintf("duplicate name %q (also agents[%d]); names must be unique", a.Name, prev))
			} else {
				seen[a.Name] = i
			}
		}
		if a.Role == "" {
			a.Role = a.Name
		}
		a.Role = strings.ToLower(a.Role)
		if a.Preset == "" {
			a.Preset = "plain"
		}
		pr, ok := presets[a.Preset]
		if !ok {
			fail(i, "preset", fmt.Sprintf("unknown preset %q; known presets are %s", a.Preset, strings.Join(sortedKeys(presets), ", ")))
			pr = presets["plain"] // to check the rest
		}
		if len(a.Command) == 0 && ok {
			a.Command = append([]string(nil), pr.Command...) // the CLI's usual command
		}
		if ok && (len(a.Command) == 0 || strings.TrimSpace(a.Command[0]) == "") {
			fail(i, "command", "missing; give the program to run as a list, e.g. command: [claude]")
		}
		if a.Parse == "" {
			a.Parse = pr.Parse
		}
		if a.Parse != "stream" && a.Parse != "screen" {
			fail(i, "parse", fmt.Sprintf("%q is not a parse mode; use stream or screen", a.Parse))
		}
		if a.Restart == "" {
			a.Restart = pr.Restart
		}
		if a.Restart != "never" && a.Restart != "on-failure" && a.Restart != "always" {
			fail(i, "restart", fmt.Sprintf("%q is not a restart policy; use never, on-failure or always", a.Restart))
		}
		if a.Isolation == "" {
			a.Isolation = t.Isolation
		}
		switch a.Isolation {
		case "", "auto", "sandbox", "userns", "none":
		default:
			if a.Isolation != t.Isolation {
				fail(i, "isolation", fmt.Sprintf("%q is not an isolation; use auto, sandbox, userns or none", a.Isolation))
			} else if !isolationReported {
				isolationReported = true
				p.add(&FieldError{File: file, Line: lineOf(root, "isolation"), Field: "isolation", Msg: fmt.Sprintf("%q is not an isolation; use auto (a sandbox per agent where the kernel allows one), sandbox (required), userns (a user namespace alone) or none", a.Isolation)})
			}
		}
		if a.Host != "" && !hostName.MatchString(a.Host) {
			fail(i, "host", fmt.Sprintf("%q is not a node name: letters, digits, - and _ (the name `teamlead node --name` is given)", a.Host))
		}
		if a.Cols < 0 || a.Rows < 0 || a.Cols > 1000 || a.Rows > 1000 {
			key := "cols"
			if a.Cols >= 0 && a.Cols <= 1000 {
				key = "rows"
			}
			fail(i, key, "terminal size must be between 1 and 1000")
		}
		if a.Scrollback < 0 || a.Scrollback > 1000000 {
			fail(i, "scrollback", "keep between 0 and 1000000 lines")
		}
		if a.Dir == "" {
			a.Dir = "."
		}
		if !filepath.IsAbs(a.Dir) {
			a.Dir = filepath.Join(base, a.Dir)
		}
		if !a.Budget.Set() {
			a.Budget = t.Budget
		}
		if a.Budget.Tokens < 0 || a.Budget.USD < 0 {
			fail(i, "budget", "a budget is positive: tokens and usd, each 0 for no limit")
		}
		if a.Price == (Price{}) {
			a.Price = t.Price
		}
		if a.Price.Input < 0 || a.Price.Output < 0 || a.Price.CacheRead < 0 {
			fail(i, "price", "a price is positive: input, output and cache_read, in USD per million tokens")
		}
		switch w := strings.TrimSpace(a.Worktree); {
		case w == "" && t.Worktrees.Default:
			a.Branch = "teamlead/" + a.Name
		case w == "" || w == "false" || w == "no":
		case w == "true" || w == "yes":
			a.Branch = "teamlead/" + a.Name
		case !branchRE.MatchString(w) || strings.Contains(w, "..") || strings.HasSuffix(w, ".lock") || strings.HasSuffix(w, "/"):
			fail(i, "worktree", fmt.Sprintf("%q is not a branch name; write true (branch teamlead/%s), false, or a branch such as feature/login", w, a.Name))
		default:
			a.Branch = w
		}
		if len(a.Command) > 0 && strings.Contains(a.Command[0], "/") && !filepath.IsAbs(a.Command[0]) {
			a.Command[0] = filepath.Join(base, a.Command[0])
		}
		t.Resolved[a.Name] = pr
	}
}

func (t *Team) validateLead(file string, root *yaml.Node, p *problems) {
	if t.Lead.Delegate == "" {
		t.Lead.Delegate = "developer"
	}
	if t.Lead.RelayRate == 0 {
		t.Lead.RelayRate = DefaultRelayRate
	}
	switch {
	case t.Lead.RelayBurst == 0:
		t.Lead.RelayBurst = DefaultRelayBurst
	case t.Lead.RelayBurst < 0:
		p.add(&FieldError{File: file, Line: lineOf(child(root, "lead"), "relay_burst"), Field: "lead.relay_burst",
			Msg: fmt.Sprintf("%d is negative; give how many blocks an agent may send at once (default %d)", t.Lead.RelayBurst, DefaultRelayBurst)})
	}
}

// Consultations configures consultations and query files.
type Consultations struct {
	// Rules is the consultations.yaml file; default: consultations.yaml
	// beside the team file if there is one, else the built-in rules.
	Rules string `yaml:"rules"`
	// Queries are shared .spc/queries folders watched besides each agent's
	// own (relative to the team file).
	Queries []string `yaml:"queries"`
	// Parsed holds the loaded rules.
	Parsed consult.Rules `yaml:"-"`
}

func (t *Team) validateConsultations(file string, root *yaml.Node, base string) []error {
	c := &t.Consultations
	if c.Rules != "" && !filepath.IsAbs(c.Rules) {
		c.Rules = filepath.Join(base, c.Rules)
	} else if c.Rules == "" {
		if _, err := os.Stat(filepath.Join(base, "consultations.yaml")); err == nil {
			c.Rules = filepath.Join(base, "consultations.yaml")
		}
	}
	for i, q := range c.Queries {
		if !filepath.IsAbs(q) {
			c.Queries[i] = filepath.Join(base, q)
		}
	}
	if c.Rules != "" {
		if err := readable(c.Rules); err != nil {
			return []error{&FieldError{File: file, Line: lineOf(child(root, "consultations"), "rules"), Field: "consultations.rules",
				Msg: err.Error() + "; fix the path (relative to the team file's folder), or delete the key for the built-in rules"}}
		}
	}
	if c.Rules == "" {
		_, _ = t.OwnData(filepath.Join(base, "consultations.yaml")) // not there: noted so
		c.Parsed, _ = loadConsultations("")
		return nil
	}
	data, err := t.OwnData(c.Rules)
	if err != nil {
		return []error{fmt.Errorf("%w: cannot read the consultation rules: %v (fix consultations.rules in the team file)", ErrInvalid, err)}
	}
	rules, errs := parseConsultations(c.Rules, data)
	c.Parsed = rules
	return errs
}

// readable says in plain words why file cannot be read as a file, or nil.
func readable(file string) error {
	st, err := os.Stat(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("there is no file %s", file)
	case err != nil:
		return fmt.Errorf("cannot read %s: %v", file, err)
	case st.IsDir():
		return fmt.Errorf("%s is a folder, not a file", file)
	}
	return nil
}

func (t *Team) validateQuestions(file string, root *yaml.Node, base string, p *problems) {
	q := &t.Questions
	qn := child(root, "questions")
	if q.Answerers != "" && !filepath.IsAbs(q.Answerers) {
		q.Answerers = filepath.Join(base, q.Answerers)
	} else if q.Answerers == "" {
		if _, err := os.Stat(filepath.Join(base, "answerers.yaml")); err == nil {
			q.Answerers = filepath.Join(base, "answerers.yaml")
		}
	}
	if q.Answerers != "" {
		if err := readable(q.Answerers); err != nil {
			p.add(&FieldError{File: file, Line: lineOf(qn, "answerers"), Field: "questions.answerers",
				Msg: err.Error() + "; fix the path (relative to the team file's folder), or delete the key to send every question to human/requester"})
		}
	}
	if q.Expire == 0 {
		q.Expire = 30 * 24 * time.Hour
	}
	if len(q.BlockOn) == 0 {
		q.BlockOn = []string{"blocking"}
	}
	for _, name := range sortedKeys(q.Tools) {
		tool := q.Tools[name]
		if len(tool.Command) == 0 {
			p.add(&FieldError{File: file, Line: lineOf(child(qn, "tools"), name), Field: "questions.tools." + name + ".command",
				Msg: "missing; give the program that answers, e.g. command: [./answer.sh]"})
			continue
		}
		if strings.Contains(tool.Command[0], "/") && !filepath.IsAbs(tool.Command[0]) {
			tool.Command[0] = filepath.Join(base, tool.Command[0])
		}
		if tool.Timeout <= 0 {
			tool.Timeout = time.Minute
		}
		q.Tools[name] = tool
	}
}

// WorktreeOf is what the team file says of a's git worktree (a.Branch is
// "" for an agent without one). Before teamlead run places the agent,
// a.Dir is the repository; after, a.Repo holds it.
func (t *Team) WorktreeOf(a Agent) worktree.Spec {
	repo := a.Dir
	if a.Repo != "" {
		repo = a.Repo
	}
	return worktree.Spec{Repo: repo, Agent: a.Name, Branch: a.Branch, Root: t.Worktrees.Root}
}
