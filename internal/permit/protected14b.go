package permit

import (
	"path"
	"strings"
)

// Red team 14b, finding 12: CI services, hosted builds and dev
// environments that run commands from files in the repository (on a push,
// a deploy, or when the human opens the workspace), and REPL rc files the
// tool loads from the folder. Every name in both .yml and .yaml spellings,
// since each service reads both. Kept apart from protectedNames and merged
// in at start, so that each round's list reads as one block.
var (
	protectedNames14b = map[string]string{
		".readthedocs.yaml": "Read the Docs' build (build.commands and build.jobs run with the project's secrets)",
		".readthedocs.yml":  "Read the Docs' build (build.commands and build.jobs run with the project's secrets)",
		"readthedocs.yaml":  "Read the Docs' build (build.commands and build.jobs run with the project's secrets)",
		"readthedocs.yml":   "Read the Docs' build (build.commands and build.jobs run with the project's secrets)",
		".build.yml":        "CI pipelines (sourcehut)", ".build.yaml": "CI pipelines (sourcehut)",
		"azure-pipelines.yaml": "CI pipelines", "bitbucket-pipelines.yaml": "CI pipelines",
		".gitlab-ci.yaml": "CI pipelines", ".travis.yaml": "CI pipelines", ".drone.yaml": "CI pipelines",
		".gitpod.yaml": "the commands a Gitpod workspace runs", ".gitpod.dockerfile": "the image a Gitpod workspace builds and starts",
		"appveyor.yaml": "CI pipelines", ".appveyor.yaml": "CI pipelines", ".cirrus.yaml": "CI pipelines",
		"bitrise.yaml": "CI pipelines", "codemagic.yml": "CI pipelines", "codefresh.yml": "CI pipelines", "codefresh.yaml": "CI pipelines",
		".scrutinizer.yml": "CI pipelines", ".scrutinizer.yaml": "CI pipelines", "wercker.yml": "CI pipelines", "wercker.yaml": "CI pipelines",
		"buildkite.yml": "CI pipelines (buildkite-agent pipeline upload reads it)", "buildkite.yaml": "CI pipelines (buildkite-agent pipeline upload reads it)",
		"heroku.yml": "the deploy's build and release commands (Heroku)", "heroku.yaml": "the deploy's build and release commands (Heroku)",
		"procfile": "the processes the deploy (and foreman, honcho) runs", "amplify.yml": "the deploy's build commands (AWS Amplify)",
		"amplify.yaml": "the deploy's build commands (AWS Amplify)", ".platform.app.yaml": "the deploy's build and deploy hooks (Platform.sh)",
		"nixpacks.toml": "the deploy's build commands (Nixpacks)", ".nixpacks.toml": "the deploy's build commands (Nixpacks)",
		"replit.nix":   "the workspace's environment (Replit)",
		"devfile.yaml": "the dev workspace's commands (Che, Dev Spaces run them on start)", "devfile.yml": "the dev workspace's commands (Che, Dev Spaces run them on start)",
		".devfile.yaml": "the dev workspace's commands (Che, Dev Spaces run them on start)", ".devfile.yml": "the dev workspace's commands (Che, Dev Spaces run them on start)",
		"dagger.json":    "the Dagger module's source and SDK (its functions run in CI)",
		"renovate.json":  "Renovate's configuration (postUpgradeTasks run commands; registries and their credentials)",
		"renovate.json5": "Renovate's configuration (postUpgradeTasks run commands; registries and their credentials)",
		".renovaterc":    "Renovate's configuration (postUpgradeTasks run commands)", ".renovaterc.json": "Renovate's configuration (postUpgradeTasks run commands)",
		".renovaterc.json5": "Renovate's configuration (postUpgradeTasks run commands)",
		".irbrc":            "irb's startup code (irb loads ./.irbrc)", ".pryrc": "pry's startup code (pry loads ./.pryrc)",
	}
	protectedDirs14b = map[string]string{
		".harness": "CI pipelines (Harness)", ".idx": "the workspace's environment and its onCreate/onStart hooks (IDX, Firebase Studio)",
		".dagger": "the Dagger module's code (its functions run in CI)", ".upsun": "the deploy's build and deploy hooks (Upsun)",
		".buildkite": "CI pipelines",
	}
	protectedGitHub14b = []string{"renovate.json", "renovate.json5"}
	// rootNames14b are protected at the working directory's top only: their
	// names are common elsewhere (app.json is also Expo's configuration).
	rootNames14b = map[string]string{"app.json": "Heroku's CI and review apps (scripts.test, postdeploy run with the app's secrets)"}
)

func init() {
	for k, v := range protectedNames14b {
		protectedNames[k] = v
	}
	for k, v := range protectedDirs14b {
		protectedDirs[k] = v
	}
	for _, k := range protectedGitHub14b {
		protectedGitHub[k] = true
	}
}

// rootProtected reports a file protected at the working directory's top.
func (e Env) rootProtected(abs string) (string, bool) {
	if e.Workdir == "" {
		return "", false
	}
	for name, why := range rootNames14b {
		if strings.EqualFold(abs, path.Join(e.Workdir, name)) {
			return why, true
		}
	}
	return "", false
}
