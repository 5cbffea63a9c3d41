package goenv

import (
	"os"
	"path/filepath"
	"testing"
)

// The caches and the proxy are found as go finds them: the environment,
// then the go env file, then go's defaults.
func TestCachesAndProxy(t *testing.T) {
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "go", "env"), []byte("GOPROXY=https://corp.example\nGOPATH=/gp1:/gp2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	withFile := env(map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": cfg})
	if got := Proxy(withFile); got != "https://corp.example" {
		t.Errorf("Proxy from the env file: %q", got)
	}
	if got := ModCache(withFile); got != "/gp1/pkg/mod" {
		t.Errorf("ModCache from the env file's GOPATH: %q", got)
	}
	bare := env(map[string]string{"HOME": "/h", "GOENV": "off"})
	if ModCache(bare) != "/h/go/pkg/mod" || BuildCache(bare) != "/h/.cache/go-build" || Proxy(bare) != DefaultProxy {
		t.Errorf("defaults: %q %q %q", ModCache(bare), BuildCache(bare), Proxy(bare))
	}
	if ModCacheSet(bare) != "" {
		t.Errorf("ModCacheSet with nothing set: %q", ModCacheSet(bare))
	}
	set := env(map[string]string{"HOME": "/h", "GOENV": "off", "GOMODCACHE": "/m", "GOCACHE": "off"})
	if ModCache(set) != "/m" || BuildCache(set) != "" {
		t.Errorf("set: %q %q", ModCache(set), BuildCache(set))
	}
}
