package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/config"
)

// TestClientAddressOrder: the frontend a command dials is the --address flag,
// else CLINEVO_TEMPORAL_ADDRESS, else temporal.address of the config file,
// else the address a running `clinevo dev` wrote in the data dir, else the
// default. No server listens on these ports: the dial's error names the
// address it tried (and the dev file when the address came from it).
func TestClientAddressOrder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, config.WriteDev(dir, config.DevEndpoint{Address: "127.0.0.1:1", Namespace: "lab"}))
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	writeYAML(t, cfg, map[string]any{"temporal": map[string]any{"address": "127.0.0.1:3"}})
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"dev file", nil, nil, "127.0.0.1:1 (from " + filepath.Join(dir, config.DevFile)},
		{"config file over dev file", nil, []string{"--config", cfg}, "connect to Temporal at 127.0.0.1:3:"},
		{"environment over config file", map[string]string{"CLINEVO_TEMPORAL_ADDRESS": "127.0.0.1:4"}, []string{"--config", cfg}, "connect to Temporal at 127.0.0.1:4:"},
		{"flag over environment", map[string]string{"CLINEVO_TEMPORAL_ADDRESS": "127.0.0.1:4"}, []string{"--address", "127.0.0.1:5"}, "connect to Temporal at 127.0.0.1:5:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			root := newRoot()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append(append([]string{"--data-dir", dir}, tc.args...), "stream", "status", "r1"))
			err := root.Execute()
			require.ErrorContains(t, err, tc.want)
		})
	}
	// dev removes its file on exit, and only its own.
	require.NoError(t, config.RemoveDev(dir, "127.0.0.1:2"))
	require.FileExists(t, filepath.Join(dir, config.DevFile))
	require.NoError(t, config.RemoveDev(dir, "127.0.0.1:1"))
	require.NoFileExists(t, filepath.Join(dir, config.DevFile))
}
