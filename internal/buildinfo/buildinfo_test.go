package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install of a tag", debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"a checkout with changes", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "6f93b0b1234567890abcdef"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) (commit 6f93b0b12345, 2026-12-01T10:00:00Z, modified)"},
		{"a test binary", debug.BuildInfo{}, "(devel)"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, versionOf(&tc.bi)) })
	}
	require.NotEmpty(t, Version())
	Stamp = "v0.4.0 (commit 6f93b0b)"
	defer func() { Stamp = "" }()
	require.Equal(t, "v0.4.0 (commit 6f93b0b)", Version(), "a stamped build says what it was stamped with")
}

func TestLineOf(t *testing.T) {
	checkout := []debug.BuildSetting{{Key: "vcs.revision", Value: "6f93b0b1234567890abcdef"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}}
	for _, tc := range []struct {
		name, version string
		bi            debug.BuildInfo
		want          string
	}{
		{"go install of a tag", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0 go1.26.8"},
		{"a checkout", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: checkout},
			"(devel) commit 6f93b0b12345 2026-12-01T10:00:00Z go1.26.8"},
		{"a checkout with changes", "", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: append([]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, checkout...)},
			"(devel) commit 6f93b0b12345+dirty 2026-12-01T10:00:00Z go1.26.8"},
		{"-X main.version wins over the module version", "v9", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "v9 go1.26.8"},
		{"a short revision", "", debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, " commit abc go1.26.8"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, lineOf(tc.version, &tc.bi)) })
	}
	require.NotEmpty(t, Line(""))
}
