// Package realcli holds the end-to-end tests that run the real agent CLIs
// (Claude Code, Codex, Gemini CLI, GitHub Copilot CLI, OpenCode) inside the real teamlead binary, against
// the scripted model server of internal/fakemodel on loopback: an envelope
// in the model's reply relayed exactly once, a message typed into the CLI
// reaching the model, the protocol primer reaching the model, and tool
// calls approved by the policy or held for the human, through Claude
// Code's hooks and through each CLI's own permission dialog; the tokens
// teamlead reads from what each CLI records equal to the model server's
// usage, and each CLI started back into its conversation after a crash.
//
// The tests are behind the realcli build tag and need the CLIs installed
// with npm (`make e2e-real`; .ci/run installs them):
//
//	npm install --prefix $TEAMLEAD_CLIS/claude @anthropic-ai/claude-code@2.1.328
//	npm install --prefix $TEAMLEAD_CLIS/codex  @openai/codex@0.169.0
//	npm install --prefix $TEAMLEAD_CLIS/gemini @google/gemini-cli@0.61.0
//	npm install --prefix $TEAMLEAD_CLIS/copilot @github/copilot@1.0.102
//	npm install --prefix $TEAMLEAD_CLIS/opencode opencode-ai@1.18.33
//	go test -tags realcli -count=1 -timeout 15m ./internal/realcli/...
//
// TEAMLEAD_CLIS defaults to $HOME/.cache/teamlead/clis; a test whose CLI is
// not installed there is skipped, saying how to install it.
//
// TEAMLEAD_REALCLI_SCREENS=DIR runs each CLI under script(1) and writes its
// terminal output, its last screen and the model server's requests into
// DIR, to look into a failure.
package realcli
