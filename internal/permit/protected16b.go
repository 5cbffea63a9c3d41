package permit

// Red team 16b, finding 3: the files that configure a build tool's JVM,
// launcher or extensions (not the build script itself: build.gradle and
// pom.xml stay editable, as Makefile and package.json's scripts are, since
// the agent is meant to change the build), and the configuration other
// allowed tools load code from. The human's next mvn -v ran the agent's
// -javaagent from .mvn/jvm.config. Merged in at start, as round 14b's.
var (
	protectedNames16b = map[string]string{
		"mvnw": "Maven's wrapper script (every ./mvnw runs it)", "mvnw.cmd": "Maven's wrapper script (every mvnw runs it)",
		"gradlew": "Gradle's wrapper script (every ./gradlew runs it)", "gradlew.bat": "Gradle's wrapper script (every gradlew runs it)",
		"gradle.properties":        "Gradle's JVM arguments and properties (org.gradle.jvmargs=-javaagent runs code)",
		"settings.gradle":          "Gradle's settings (plugins and included builds it loads before any build file)",
		"settings.gradle.kts":      "Gradle's settings (plugins and included builds it loads before any build file)",
		"init.gradle":              "a Gradle init script (code run before every build)",
		"init.gradle.kts":          "a Gradle init script (code run before every build)",
		"directory.build.props":    "MSBuild's properties for every project below (tasks and targets run by dotnet build)",
		"directory.build.targets":  "MSBuild's targets for every project below (Exec tasks run by dotnet build)",
		"directory.build.rsp":      "MSBuild's response file (options of every build below)",
		"directory.packages.props": "NuGet's central package versions (what dotnet restore downloads)",
		"global.json":              "the .NET SDK (and MSBuild SDKs) dotnet resolves and runs",
		"nuget.config":             "NuGet's sources and their credentials (what dotnet restore downloads and runs)",
		"bunfig.toml":              "bun's configuration (preload: modules every bun run and bun test loads)",
		".rubocop.yml":             "rubocop's configuration (require: code it loads)",
		".rspec":                   "rspec's options (--require: code it loads)",
		".nycrc":                   "nyc's configuration (require: modules it loads)", ".nycrc.json": "nyc's configuration (require: modules it loads)",
		".nycrc.yml": "nyc's configuration (require: modules it loads)", ".nycrc.yaml": "nyc's configuration (require: modules it loads)",
	}
	protectedDirs16b = map[string]string{
		".mvn": "Maven's JVM and build options and extensions (jvm.config, maven.config, extensions.xml, the wrapper)",
	}
	protectedSubDirs16b = map[[2]string]string{
		{"gradle", "wrapper"}: "the Gradle distribution gradlew downloads and runs",
	}
	protectedPrefixes16b = map[string]string{
		"commitlint.config.": "commitlint's configuration (code the commit-msg hook loads)",
		".commitlintrc":      "commitlint's configuration (code the commit-msg hook loads)",
	}
)

func init() {
	for k, v := range protectedNames16b {
		protectedNames[k] = v
	}
	for k, v := range protectedDirs16b {
		protectedDirs[k] = v
	}
	for k, v := range protectedSubDirs16b {
		protectedSubDirs[k] = v
	}
	for k, v := range protectedPrefixes16b {
		protectedPrefixes[k] = v
	}
}
