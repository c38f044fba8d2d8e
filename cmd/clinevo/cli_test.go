package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/engine"
)

// TestExitCodes: bad input (a flag, an argument, a command, a config value)
// exits 2; a failure at run time (no Temporal at the address) exits 1.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want int
	}{
		{"unknown flag", nil, []string{"stream", "start", "--bogus"}, exitBadInput},
		{"unknown command", nil, []string{"streem"}, exitBadInput},
		{"missing argument", nil, []string{"stream", "status"}, exitBadInput},
		{"bad run ID", nil, []string{"stream", "status", "a b"}, exitBadInput},
		{"bad config value", map[string]string{"CLINEVO_LOG_LEVEL": "loud"}, []string{"runs", "list"}, exitBadInput},
		{"invalid spec", nil, []string{"stream", "start", "--run", "r", "--stage-size", "-1"}, exitBadInput},
		{"no Temporal", nil, []string{"--address", "127.0.0.1:1", "stream", "status", "r1"}, exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.env, tc.args...)
			require.Error(t, err)
			require.Equal(t, tc.want, exitCode(err), "%v", err)
		})
	}
	require.Equal(t, exitFailure, exitCode(errors.New("boom")))
	require.Equal(t, exitBadInput, exitCode(fmt.Errorf("stream r1 already exists: %w", engine.ErrRunExists)), "a run ID already used")
	require.Equal(t, exitBadInput, exitCode(fmt.Errorf("stream r1 has %w", engine.ErrFinished)), "a finished run restarted")
	require.Equal(t, exitBadInput, exitCode(fmt.Errorf("experiment x is %w", engine.ErrRunning)), "a running experiment resumed")
}

// TestVersion prints the Go version and, with -X main.version, that version.
func TestVersion(t *testing.T) {
	out, err := run(t, nil, "version")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, "clinevo "), out)
	require.Contains(t, out, runtime.Version())
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.9.9"
	out, err = run(t, nil, "version")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, "clinevo v9.9.9"), out)
}

// TestHelp: every runnable command has examples, no bool flag renders as
// --name[=true|false], and bool flags still parse bare.
func TestHelp(t *testing.T) {
	root := newRoot()
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if c.Runnable() {
			require.NotEmpty(t, c.Example, "%s has no examples", c.CommandPath())
		}
		require.NotContains(t, c.UsageString(), "[=true|false]", c.CommandPath())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	var f *pflag.Flag
	for _, c := range root.Commands() {
		if c.Name() == "stream" {
			start, _, err := c.Find([]string{"start"})
			require.NoError(t, err)
			require.NoError(t, start.ParseFlags([]string{"--wait", "--stage-eval=false"}))
			f = start.Flags().Lookup("wait")
			require.Equal(t, "true", f.Value.String())
			require.Equal(t, "false", start.Flags().Lookup("stage-eval").Value.String())
			v, err := start.Flags().GetBool("wait")
			require.NoError(t, err)
			require.True(t, v)
		}
	}
	require.NotNil(t, f)
}

// TestListingsPrintJSON: the listing commands that need no Temporal print
// JSON with --json, snake_case throughout.
func TestListingsPrintJSON(t *testing.T) {
	for _, args := range [][]string{
		{"corpus", "stats", "builtin:heldout", "--against", "builtin:stream", "--json"},
		{"experiment", "validate", "../../experiments/quick.yaml", "--json"},
	} {
		out, err := run(t, nil, args...)
		require.NoError(t, err, args)
		requireSnakeKeys(t, decodeJSON(t, out), args[0])
	}
	file := filepath.Join(t.TempDir(), "c.jsonl")
	_, err := run(t, nil, "corpus", "gen", "--out", filepath.Dir(file))
	require.NoError(t, err)
	out, err := run(t, nil, "corpus", "validate", filepath.Join(filepath.Dir(file), "heldout.jsonl"), "--json")
	require.NoError(t, err)
	js := decodeJSON(t, out)
	require.Equal(t, true, js["valid"])
	require.Greater(t, js["cases"], float64(0))
}
