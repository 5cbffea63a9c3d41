package permit

import (
	"path"
	"regexp"
	"strings"
)

// tscArgs returns the arguments of a TypeScript compiler run (npx tsc,
// tsc, pnpm exec tsc …), with its option names lower-cased: tsc reads
// --OutDir and --outdir as --outDir (red team 11b, finding 3).
func tscArgs(v view) ([]Word, bool) {
	args := v.args
	if v.name != "tsc" {
		strs := make([]string, len(args))
		for i, a := range args {
			strs[i] = a.Value
		}
		tool, rest := jsTool(v.name, strs)
		if tool != "tsc" || !jsRunners[v.name] {
			return nil, false
		}
		args = args[len(args)-len(rest):]
	}
	out := make([]Word, len(args))
	for i, a := range args {
		out[i] = a
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			n, val, eq := strings.Cut(a.Value, "=")
			n = strings.ToLower(n)
			if eq {
				n += "=" + val
			}
			out[i].Value = n
		}
	}
	return out, true
}

// tscOutputOpts are tsc's options that name a file or folder it writes,
// lower-cased.
var tscOutputOpts = []string{"--outfile", "--outdir", "--out", "--declarationdir", "--tsbuildinfofile",
	"--generatecpuprofile", "--generatetrace", "--pprofdir"}

// tscExtends finds the files a tsconfig extends.
var tscExtends = regexp.MustCompile(`"extends"\s*:\s*(\[[^\]]*\]|"[^"]*")`)

// tscHits: the files tsc writes through its options in any letter case,
// and the project files it reads that can name others (outDir in a
// tsconfig.json; -p, -b and @FILE name any file): a project file that is
// not a protected tsconfig*.json, or a tsconfig that extends one, asks
// (red team 11b, finding 3).
func tscHits(v view, cwds cwdSet, env Env) []hit {
	args, ok := tscArgs(v)
	if !ok {
		return nil
	}
	var hs []hit
	for _, w := range optionFiles(args, tscOutputOpts) {
		hs = append(hs, writeHits(w, cwds, env, "tsc")...)
	}
	for _, a := range args {
		if a.Value == "--init" { // writes tsconfig.json where it runs (red team 12b, finding 13)
			hs = append(hs, writeHits(Word{Raw: "tsconfig.json", Value: "tsconfig.json"}, cwds, env, "tsc --init")...)
		}
	}
	ask := func(d string) []hit {
		return append(hs, hit{id: FloorCodeExec, detail: "tsc " + d + ": a project file can name where tsc writes (outDir, tsBuildInfoFile), and only tsconfig*.json files are protected"})
	}
	var projects []Word
	build := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a.Value, "@"):
			return ask("reads more options from " + a.Value)
		case a.Value == "-p" || a.Value == "--project":
			if i+1 < len(args) {
				i++
				projects = append(projects, args[i])
			}
		case strings.HasPrefix(a.Value, "--project=") || strings.HasPrefix(a.Value, "-p="):
			_, p, _ := strings.Cut(a.Value, "=")
			projects = append(projects, pathWord(p))
		case a.Value == "-b" || a.Value == "--build":
			build = true
		case build && !strings.HasPrefix(a.Value, "-"):
			projects = append(projects, a)
		}
	}
	if len(projects) == 0 { // tsc reads tsconfig.json where it runs
		projects = []Word{{Raw: "tsconfig.json", Value: "tsconfig.json"}}
	}
	for _, p := range projects {
		abs, ok := cwds.resolve(p)
		if !ok {
			return ask("project " + p.Raw + ", known only when it runs")
		}
		for _, a := range abs {
			file := a
			if fi, err := statFS(env, a); err == nil && fi.IsDir() {
				file = path.Join(a, "tsconfig.json")
			} else if !tsconfigName(a) {
				return ask("project " + p.Raw)
			}
			if why, bad := tscExtendsOther(env, file); bad {
				return ask(why)
			}
		}
	}
	return hs
}

// tsconfigName reports a protected tsconfig file name.
func tsconfigName(p string) bool {
	return strings.HasPrefix(strings.ToLower(path.Base(p)), "tsconfig")
}

// tscExtendsOther reports a tsconfig that extends a file other than a
// tsconfig*.json of the folder, or that cannot be read as text.
func tscExtendsOther(env Env, file string) (string, bool) {
	if env.FS == nil {
		return "", false
	}
	body, err := env.FS.ReadFile(file)
	if err != nil {
		return "", false // no project file: tsc compiles what it is given
	}
	for _, m := range tscExtends.FindAllStringSubmatch(string(body), -1) {
		for _, q := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
			e := q[1]
			if !tsconfigName(e) || !strings.HasPrefix(e, ".") && !path.IsAbs(e) {
				return file + " extends " + e, true
			}
			if !path.IsAbs(e) {
				e = path.Join(path.Dir(file), e)
			}
			if !env.inside(e) {
				return file + " extends " + e + ", outside the folder", true
			}
		}
	}
	if strings.Contains(string(body), `"references"`) {
		return file + " references other projects", true
	}
	return "", false
}
