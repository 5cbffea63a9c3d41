package permit

import "strings"

// cargoReaders tell who reads the words after a cargo subcommand's --:
// rustc (clippy-driver is rustc), rustdoc, or the test harness.
var cargoReaders = map[string]string{"clippy": "rustc", "rustc": "rustc", "rustdoc": "rustdoc",
	"test": "harness", "bench": "harness", "t": "harness"}

// cargoGlobalValues are cargo's options before the subcommand that take
// the next word.
var cargoGlobalValues = setOf("--config", "-Z", "-C", "--color", "--explain")

// cargoPassed returns who reads the words after a cargo command's --, and
// those words.
func cargoPassed(args []Word) (string, []Word) {
	sub := ""
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			return cargoReaders[sub], args[i+1:]
		case sub == "" && cargoGlobalValues[v]:
			i++
		case sub == "" && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
			sub = v
		}
	}
	return "", nil
}

// rustcCodegenCode are rustc's -C settings that name a program or code:
// the linker, its arguments (-B, -fuse-ld=, plugins), an LTO plugin,
// dlltool. rustcCodegenWrites name a folder rustc writes.
var (
	rustcCodegenCode   = setOf("linker", "link-arg", "link-args", "linker-plugin-lto", "dlltool", "ar", "pre-link-arg", "pre-link-args")
	rustcCodegenWrites = setOf("incremental", "profile-generate")
)

// rustcValue returns the value of option o at args[i] (o VALUE, oVALUE for
// a short one, o=VALUE for a long one) and how many more words it took.
func rustcValue(args []Word, i int, o string) (string, int, bool) {
	v := args[i].Value
	switch {
	case v == o && i+1 < len(args):
		return args[i+1].Value, 1, true
	case len(o) == 2 && strings.HasPrefix(v, o) && len(v) > 2:
		return strings.TrimPrefix(v[2:], "="), 0, true
	case len(o) > 2 && strings.HasPrefix(v, o+"="):
		return v[len(o)+1:], 0, true
	}
	return "", 0, false
}

// rustcPassHits returns what the words after cargo's -- make rustc,
// rustdoc or the test harness run (code) and write (files).
func rustcPassHits(reader string, pass []Word) (code []string, writes []Word) {
next:
	for i := 0; i < len(pass); i++ {
		v := pass[i].Value
		if reader == "harness" {
			if p, skip, ok := rustcValue(pass, i, "--logfile"); ok {
				writes, i = append(writes, pathWord(p)), i+skip
			}
			continue
		}
		if strings.HasPrefix(v, "@") {
			code = append(code, v+" reads more arguments from a file")
			continue
		}
		if strings.HasPrefix(v, "-Z") {
			code = append(code, v+" (an unstable option: code generation backends, plugins, profiles)")
			continue
		}
		for _, o := range []string{"-C", "--codegen"} {
			cg, skip, ok := rustcValue(pass, i, o)
			if !ok {
				continue
			}
			i += skip
			k, val, _ := strings.Cut(cg, "=")
			switch {
			case rustcCodegenCode[k] && !(k == "linker-plugin-lto" && isRustBool(val)):
				code = append(code, "-C "+cg+" names a program or its arguments")
			case rustcCodegenWrites[k] && val != "":
				writes = append(writes, pathWord(val))
			}
			continue next
		}
		for _, o := range []string{"-L", "--extern", "--sysroot", "--target", "--test-builder", "--test-runtool",
			"--runtool", "--test-builder-wrapper"} {
			val, skip, ok := rustcValue(pass, i, o)
			if !ok {
				continue
			}
			i += skip
			switch {
			case o == "--extern" && !strings.Contains(val, "="):
			case o == "--target" && !strings.Contains(val, "/") && !strings.HasSuffix(val, ".json"):
			default:
				code = append(code, o+" "+val+" names code or a program from elsewhere")
			}
			continue next
		}
		for _, o := range []string{"-o", "--out-dir", "--emit", "--print", "--persist-doctests", "--output"} {
			val, skip, ok := rustcValue(pass, i, o)
			if !ok {
				continue
			}
			i += skip
			switch o {
			case "--emit", "--print": // KIND=PATH,…
				for _, kv := range strings.Split(val, ",") {
					if _, p, ok := strings.Cut(kv, "="); ok && p != "" && p != "-" {
						writes = append(writes, pathWord(p))
					}
				}
			default:
				writes = append(writes, pathWord(val))
			}
			continue next
		}
	}
	return code, writes
}

func isRustBool(v string) bool {
	switch v {
	case "", "y", "yes", "on", "true", "n", "no", "off", "false":
		return true
	}
	return false
}
