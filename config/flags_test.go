package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/config"
)

// TestLoadFlags: a command's flags that BindKey annotated set their keys
// when given, and only then (a flag's own default never hides the
// configured value); the address and namespace a running `clinevo dev`
// wrote in the data dir are used unless given, each on its own.
func TestLoadFlags(t *testing.T) {
	set := buildSet(t)
	dir := t.TempDir()
	t.Setenv("CLINEVO_DATA_DIR", dir)
	require.NoError(t, config.WriteDev(dir, config.DevEndpoint{Address: "127.0.0.1:9999", Namespace: "devns", PID: 1}))
	load := func(args ...string) (config.Config, error) {
		v := config.New(set)
		fs := pflag.NewFlagSet("stream start", pflag.ContinueOnError)
		fs.String("profile", "", "")
		config.BindKey(fs, "profile", "profile")
		fs.Int("update-interval", 0, "")
		config.BindKey(fs, "update-interval", "evolver.update_interval")
		fs.String("address", "", "")
		fs.String("namespace", "", "")
		require.NoError(t, v.BindPFlag("temporal.address", fs.Lookup("address"))) // as the CLI's client flags bind
		require.NoError(t, fs.Parse(args))
		return config.LoadFlags(v, "", set, fs)
	}
	def := set.DefaultSettings()

	cfg, err := load("--profile", "medinquire")
	require.NoError(t, err)
	require.Equal(t, "medinquire", cfg.Settings.Benchmark)
	require.Equal(t, def.Evolver.UpdateInterval, cfg.Settings.Evolver.UpdateInterval, "a flag not given keeps the configured value, not its 0")
	require.Equal(t, "127.0.0.1:9999", cfg.Temporal.Address)
	require.Equal(t, "devns", cfg.Temporal.Namespace)
	require.Equal(t, filepath.Join(dir, config.DevFile), cfg.Temporal.Source)

	cfg, err = load("--update-interval", "3", "--address", "10.0.0.1:7233")
	require.NoError(t, err)
	require.Equal(t, 3, cfg.Settings.Evolver.UpdateInterval)
	require.Equal(t, "10.0.0.1:7233", cfg.Temporal.Address, "a given address wins over the DevFile")
	require.Empty(t, cfg.Temporal.Source)
	require.Equal(t, "devns", cfg.Temporal.Namespace, "the namespace not given still comes from the DevFile")

	_, err = load("--profile", "no-such-benchmark")
	require.ErrorContains(t, err, "no-such-benchmark")
}

// TestLogger: the process's logger writes at log.level: info by default,
// more or less as set.
func TestLogger(t *testing.T) {
	for _, tc := range []struct {
		level      string
		info, warn bool
	}{{"", true, true}, {"info", true, true}, {"warn", false, true}, {"debug", true, true}, {"error", false, false}} {
		var out strings.Builder
		l := config.LogConfig{Level: tc.level}.Logger(&out)
		l.Info("stream started", "run", "r")
		l.Warn("slow")
		require.Equal(t, tc.info, strings.Contains(out.String(), `level=INFO msg="stream started" run=r`), tc.level)
		require.Equal(t, tc.warn, strings.Contains(out.String(), `level=WARN msg=slow`), tc.level)
	}
}
