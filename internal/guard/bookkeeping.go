package guard

import (
	"encoding/json"
	"strings"

	"github.com/BurntSushi/toml"
)

// What the agent CLIs write into their home files on every run, seen in
// Claude Code 2.1.328's ~/.claude.json and Codex 0.169.0's config.toml
// after a session: dropped before the files are compared, so that the
// console does not tell of a change at every run (a warning the human
// learns to skip). Only keys known to be bookkeeping are dropped: a key
// not listed, a later version's, still counts.

// claudeTopBookkeeping are ~/.claude.json's top-level bookkeeping keys;
// claudeTopPrefixes its families of them.
var claudeTopBookkeeping = map[string]bool{
	"numStartups": true, "tipsHistory": true, "tipLifetimeShownCounts": true, "firstStartTime": true,
	"firstStartVersion": true, "machineID": true, "userID": true, "opusProMigrationComplete": true,
	"seenNotifications": true, "hasResetAutoModeOptInForDefaultOffer": true, "migrationVersion": true,
	"pluginUsage": true, "lastClawdEntranceVersion": true, "lastReleaseNotesSeen": true,
	"cachedChangelog": true, "changelogLastFetched": true, "autoUpdaterStatus": true, "promptQueueUseCount": true,
	"theme": true, // moved to settings by 2.1.328 on its first run; a colour scheme runs nothing
}

var claudeTopPrefixes = []string{"officialMarketplaceAutoInstall", "cachedStatsig", "cachedGrowthBook"}

// claudeProjectBookkeeping are a project entry's (projects.PATH) keys
// besides those starting "last" (lastCost, lastSessionId, lastModelUsage…).
var claudeProjectBookkeeping = map[string]bool{
	"exampleFiles": true, "exampleFilesGeneratedAt": true, "projectOnboardingSeenCount": true,
}

// claudeJSONBookkeeping is ~/.claude.json without its bookkeeping.
func claudeJSONBookkeeping(data []byte) ([]byte, bool) {
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, false
	}
	for k := range cfg {
		if claudeTopBookkeeping[k] || hasAnyPrefix(k, claudeTopPrefixes) {
			delete(cfg, k)
		}
	}
	if projects, ok := cfg["projects"].(map[string]any); ok {
		for _, p := range projects {
			entry, ok := p.(map[string]any)
			if !ok {
				continue
			}
			for k := range entry {
				if strings.HasPrefix(k, "last") || claudeProjectBookkeeping[k] {
					delete(entry, k)
				}
			}
		}
	}
	out, err := json.Marshal(cfg) // keys sorted: the same content, the same bytes
	return out, err == nil
}

// codexConfigBookkeeping is ~/.codex/config.toml without what Codex notes
// of its own screen ([tui]'s screen_reader_detection_done and
// model_availability_nux).
func codexConfigBookkeeping(data []byte) ([]byte, bool) {
	var cfg map[string]any
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return nil, false
	}
	if tui, ok := cfg["tui"].(map[string]any); ok {
		delete(tui, "screen_reader_detection_done")
		delete(tui, "model_availability_nux")
		if len(tui) == 0 {
			delete(cfg, "tui")
		}
	}
	out, err := json.Marshal(cfg)
	return out, err == nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
