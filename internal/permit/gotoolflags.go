package permit

import "strings"

// goToolOpts are the go command's options whose value is a list of flags
// for one of its tools: the compiler, the linker, the assembler.
var goToolOpts = map[string]string{"gcflags": "compile", "ldflags": "link", "asmflags": "asm"}

// goToolValues are each tool's flags that take a value (-flag value or
// -flag=value); any other flag is a switch. A flag missing here takes the
// next word for a flag of its own, which can only make the policy ask more.
var goToolValues = map[string]map[string]bool{
	"compile": setOf("D", "I", "asmhdr", "bench", "blockprofile", "buildid", "c", "coveragecfg", "cpuprofile", "d",
		"embedcfg", "env", "goversion", "importcfg", "installsuffix", "json", "lang", "linkobj", "memprofile",
		"memprofilerate", "mutexprofile", "o", "p", "pgoprofile", "spectre", "symabis", "traceprofile", "trimpath"),
	"link": setOf("B", "D", "E", "H", "I", "L", "R", "T", "X", "benchmark", "benchmarkprofile", "buildid", "buildmode",
		"capturehostobjs", "cpuprofile", "debugtextsize", "debugtramp", "extar", "extld", "extldflags", "fipso",
		"funcalign", "importcfg", "installsuffix", "k", "libgcc", "linkmode", "memprofile", "memprofilerate", "o",
		"pluginpath", "r", "randlayout", "strictdups", "tmpdir"),
	"asm": setOf("D", "I", "d", "o", "p", "spectre", "trimpath"),
}

// goToolCode are the flags that name a program, or code, the tool runs or
// links in: the ELF interpreter the binary (run by go test and go run)
// starts with, the external linker and archiver, import and embed
// configurations that map imports to archives and files, directories
// searched for packages and includes, the run-time library path.
var goToolCode = map[string]map[string]bool{
	"compile": setOf("I", "importcfg", "embedcfg", "coveragecfg"),
	"link":    setOf("I", "L", "extar", "extld", "importcfg", "libgcc", "linkmode", "r"),
	"asm":     setOf("I"),
}

// goToolWrites are the flags whose value is a file or folder the tool
// writes: profiles, headers, objects, logs. They are judged as -o is.
var goToolWrites = map[string]map[string]bool{
	"compile": setOf("asmhdr", "bench", "blockprofile", "cpuprofile", "memprofile", "mutexprofile", "traceprofile",
		"linkobj", "o", "json"),
	"link": setOf("benchmarkprofile", "capturehostobjs", "cpuprofile", "memprofile", "fipso", "o", "tmpdir"),
	"asm":  setOf("o"),
}

// extldCode are the external linker's (gcc's, clang's) options that run
// another program or load code: a folder to find the linker in, another
// linker, a wrapper, spec files, plugins, library folders, options read
// from a file.
var extldCode = []string{"-B", "-fuse-ld", "--ld-path", "-wrapper", "-specs", "--specs", "-fplugin", "-plugin",
	"--plugin", "-L", "@", "-Xlinker", "--sysroot", "-isysroot", "-o"}

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// quotedSplit splits a flag list the way the go command does
// (cmd/internal/quoted): on spaces, a field that starts with ' or " runs
// to the same quote.
func quotedSplit(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return out
		}
		if q := s[0]; q == '\'' || q == '"' {
			if i := strings.IndexByte(s[1:], q); i >= 0 {
				out = append(out, s[1:1+i])
				s = s[2+i:]
				continue
			}
		}
		i := strings.IndexAny(s, " \t\n\r")
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
}

// goToolFlag is one flag a go command line hands a tool.
type goToolFlag struct {
	tool, name, val string
}

// goToolFlags returns the flags of a go command line's -gcflags,
// -ldflags and -asmflags (-x=V, --x=V or -x V; V may start with a package
// pattern and =), and of go tool compile|link|asm.
func goToolFlags(args []string) []goToolFlag {
	var out []goToolFlag
	if len(args) > 1 && args[0] == "tool" {
		if _, ok := goToolValues[args[1]]; ok {
			return parseToolFlags(args[1], args[2:])
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		tool, ok := goToolOpts[name]
		if !ok {
			continue
		}
		if !eq && i+1 < len(args) {
			i++
			val = args[i]
		}
		out = append(out, toolFlagValue(tool, val)...)
	}
	return out
}

// toolFlagValue reads one -gcflags value: [pattern=]flags.
func toolFlagValue(tool, v string) []goToolFlag {
	v = strings.TrimSpace(v)
	if v != "" && v[0] != '-' {
		if _, rest, ok := strings.Cut(v, "="); ok {
			v = rest
		}
	}
	return parseToolFlags(tool, quotedSplit(v))
}

func parseToolFlags(tool string, fields []string) []goToolFlag {
	var out []goToolFlag
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if !strings.HasPrefix(f, "-") {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if !eq && goToolValues[tool][name] && i+1 < len(fields) {
			i++
			val = fields[i]
		}
		out = append(out, goToolFlag{tool: tool, name: name, val: val})
	}
	return out
}

// goToolCodeFlag reports a flag that makes the tool run or link in code
// the command line does not show.
func goToolCodeFlag(f goToolFlag) bool {
	switch {
	case f.tool == "link" && f.name == "libgcc":
		return f.val != "none"
	case f.tool == "link" && f.name == "linkmode":
		return f.val != "internal"
	case f.tool == "link" && f.name == "extldflags":
		for _, x := range quotedSplit(f.val) {
			for _, c := range extldCode {
				if strings.HasPrefix(x, c) {
					return true
				}
			}
			if strings.HasPrefix(x, "-Wl,") && strings.ContainsAny(x, "@") || strings.HasPrefix(x, "-Wl,") &&
				(strings.Contains(x, "plugin") || strings.Contains(x, "rpath") || strings.Contains(x, "dynamic-linker") ||
					strings.Contains(x, ",-L") || strings.Contains(x, ",-I") || strings.Contains(x, ",-o")) {
				return true
			}
		}
	}
	return goToolCode[f.tool][f.name]
}

// goToolWrite returns the file a flag makes the tool write, if any.
func goToolWrite(f goToolFlag) (Word, bool) {
	p := ""
	switch {
	case f.tool == "compile" && f.name == "json": // -json=VERSION,DEST
		_, dest, _ := strings.Cut(f.val, ",")
		p = strings.TrimPrefix(dest, "file://")
	case f.tool == "compile" && f.name == "d": // -d=dumpinlfuncprops=FILE,…
		for _, kv := range strings.Split(f.val, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok && k == "dumpinlfuncprops" {
				p = v
			}
		}
	case goToolWrites[f.tool][f.name]:
		p = f.val
	}
	if p == "" {
		return Word{}, false
	}
	w := pathWord(p)
	for _, s := range strings.Split(p, "/") {
		if s == ".." {
			// the linker of a c-shared or plugin build, and the assembler,
			// run in another folder: where ../ leads is not known here
			w.Dynamic = true
		}
	}
	return w, true
}

// goToolHits: the go command's tool flags that run code.
func goToolHits(args []string) []string {
	var out []string
	for _, f := range goToolFlags(args) {
		if goToolCodeFlag(f) {
			out = append(out, "-"+f.name+"="+f.val+" (to go tool "+f.tool+")")
		}
	}
	return out
}

// goToolFiles: the files the go command's tool flags write.
func goToolFiles(args []Word) []Word {
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	var out []Word
	for _, f := range goToolFlags(vals) {
		if w, ok := goToolWrite(f); ok {
			out = append(out, w)
		}
	}
	return out
}
