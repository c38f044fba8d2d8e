// Package buildinfo says which build of clinevo is running: its module
// version and the commit it was built from, as the Go toolchain recorded
// them (runtime/debug.ReadBuildInfo), so a report can name the code that
// made it.
package buildinfo

import (
	"cmp"
	"runtime/debug"
	"strings"
)

// Stamp, when a build sets it (go build -ldflags "-X
// github.com/clinevo/clinevo/internal/buildinfo.Stamp=..."), is the version
// the build says it is: what an image built without the repository's .git
// (deploy/Dockerfile, build argument VERSION) reports.
var Stamp string

// Version is the running build: Stamp when set; otherwise the main module's
// version ("(devel)" for a build inside a checkout), then the commit, its
// time and "modified" when the work tree had changes, as far as the build
// recorded them.
func Version() string {
	if Stamp != "" {
		return Stamp
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var extra []string
	if rev != "" {
		extra = append(extra, "commit "+rev[:min(12, len(rev))])
	}
	if at != "" {
		extra = append(extra, at)
	}
	if modified {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return v
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}

// Line is what `clinevo version` prints after the name: version when the
// binary was built with one (-X main.version), else the module version Go
// recorded (v0.x.y for `go install module@version`, (devel) in a
// checkout), then the commit ("+dirty" for a work tree with changes) and its
// time when it was built from a checkout, then the Go version.
func Line(version string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return cmp.Or(version, "(unknown)")
	}
	return lineOf(version, bi)
}

func lineOf(version string, bi *debug.BuildInfo) string {
	v := cmp.Or(version, bi.Main.Version)
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " commit " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			v += "+dirty"
		}
		if t := settings["vcs.time"]; t != "" {
			v += " " + t
		}
	}
	return v + " " + bi.GoVersion
}
