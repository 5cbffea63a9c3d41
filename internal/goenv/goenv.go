// Package goenv finds where the go command keeps its caches and fetches
// modules from, as a given environment and the go env file (go env -w)
// set them, without running go: the console asks before any agent starts,
// and the go on the PATH could be anyone's.
package goenv

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultProxy is GOPROXY when nothing sets it.
const DefaultProxy = "https://proxy.golang.org,direct"

// Value returns the go variable name as getenv's environment sets it,
// else as the go env file does; "" when neither does.
func Value(getenv func(string) string, name string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return envFile(getenv)[name]
}

// envFile reads the go env file getenv's environment names (GOENV, else
// the user's config folder's go/env).
func envFile(getenv func(string) string) map[string]string {
	file := getenv("GOENV")
	if file == "off" {
		return nil
	}
	if file == "" {
		dir := getenv("XDG_CONFIG_HOME")
		if dir == "" {
			if home := getenv("HOME"); home != "" {
				dir = filepath.Join(home, ".config")
			} else if d, err := os.UserConfigDir(); err == nil {
				dir = d
			}
		}
		if dir == "" {
			return nil
		}
		file = filepath.Join(dir, "go", "env")
	}
	body, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	vals := map[string]string{}
	for _, line := range strings.Split(string(body), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			vals[k] = strings.Trim(v, `"'`)
		}
	}
	return vals
}

// ModCacheSet returns the module cache as getenv's environment or the go
// env file sets it (GOMODCACHE, else GOPATH's first folder's pkg/mod); ""
// when nothing does, and $HOME/go/pkg/mod is meant.
func ModCacheSet(getenv func(string) string) string {
	if c := Value(getenv, "GOMODCACHE"); c != "" {
		return c
	}
	if p := Value(getenv, "GOPATH"); p != "" {
		return filepath.Join(filepath.SplitList(p)[0], "pkg", "mod")
	}
	return ""
}

// ModCache returns the module cache go uses: ModCacheSet, else
// $HOME/go/pkg/mod; "" when there is no home to put it in.
func ModCache(getenv func(string) string) string {
	if c := ModCacheSet(getenv); c != "" {
		return c
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// BuildCache returns the build cache go uses: GOCACHE, else go-build in
// the user's cache folder; "" when it is off or there is none.
func BuildCache(getenv func(string) string) string {
	c := Value(getenv, "GOCACHE")
	switch {
	case c == "off":
		return ""
	case c != "":
		return c
	}
	dir := getenv("XDG_CACHE_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "go-build")
}

// Proxy returns GOPROXY as go uses it.
func Proxy(getenv func(string) string) string {
	if p := Value(getenv, "GOPROXY"); p != "" {
		return p
	}
	return DefaultProxy
}
