// Package serverlog is the embedded Temporal server's logger wrapper: it drops
// the lines about a SQLite write that found the database locked, and copies a
// fatal line to standard error. It is apart from devserver so that its tests
// do not link the server.
package serverlog

import (
	"fmt"
	"io"
	"os"
	"strings"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// WithoutBusy drops the server's log lines about a SQLite write that found
// the database locked, and keeps every other line.
//
// Why filtered and not fixed: the server's transactions are BEGIN DEFERRED
// (the sqlite plugin takes no _txlock), so one that read on one of the four
// connections and then writes after another connection wrote fails at once
// with SQLITE_BUSY or SQLITE_BUSY_SNAPSHOT (517), without the busy timeout.
// The server retries each such write, so nothing fails, but it logs the
// error and its consequences ("Fail to process task", "Persistent fetch
// operation Failure", ...): 66 and 118 "database is locked" lines in two
// demos. One connection ends them at their cause, but serialises every read
// behind the writer; see docs/operations.md, "The embedded server's log".
//
// It also copies a fatal line to standard error (see Fatal); file is the
// server's log, named there.
func WithoutBusy(l log.Logger, file string) log.Logger {
	if s, ok := l.(log.SkipLogger); ok {
		l = s.Skip(1) // the caller of this wrapper, not the wrapper, is logged
	}
	return busyFilter{l: l, file: file}
}

// busyFilter holds, in locked, whether the tags given to With already say
// the database was locked (the history queues add the error with With, then
// log "Fail to process task").
type busyFilter struct {
	l      log.Logger
	locked bool
	file   string
}

// busy reports whether a line is about a locked database: a tag (the error)
// says so.
func busy(tags []tag.Tag) bool {
	for _, t := range tags {
		v := t.Value()
		if e, ok := v.(error); ok {
			v = e.Error()
		}
		if strings.Contains(fmt.Sprint(v), "database is locked") {
			return true
		}
	}
	return false
}

func (f busyFilter) Debug(msg string, tags ...tag.Tag) { f.l.Debug(msg, tags...) }
func (f busyFilter) Info(msg string, tags ...tag.Tag)  { f.l.Info(msg, tags...) }

func (f busyFilter) Warn(msg string, tags ...tag.Tag) {
	if !f.locked && !busy(tags) {
		f.l.Warn(msg, tags...)
	}
}

func (f busyFilter) Error(msg string, tags ...tag.Tag) {
	if !f.locked && !busy(tags) {
		f.l.Error(msg, tags...)
	}
}

func (f busyFilter) DPanic(msg string, tags ...tag.Tag) { f.l.DPanic(msg, tags...) }
func (f busyFilter) Panic(msg string, tags ...tag.Tag)  { f.l.Panic(msg, tags...) }

// Fatal is the server ending the process (a listener that cannot bind its
// port, ...). The line goes to the server's log, and to standard error, so
// that whoever ran clinevo sees why it stopped: the server's log is a file
// nobody watches.
func (f busyFilter) Fatal(msg string, tags ...tag.Tag) {
	fmt.Fprintf(fatalOut, "clinevo: the embedded Temporal server stops the process: %s%s (server log: %s)\n", msg, tagText(tags), f.file)
	f.l.Fatal(msg, tags...)
}

// fatalOut is where Fatal copies its line (a test replaces it).
var fatalOut io.Writer = os.Stderr

// tagText renders tags as " (key=value, ...)", or "" for none.
func tagText(tags []tag.Tag) string {
	if len(tags) == 0 {
		return ""
	}
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = fmt.Sprintf("%s=%v", t.Key(), t.Value())
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// With keeps the filter on a logger with more tags (the server's services
// each take one).
func (f busyFilter) With(tags ...tag.Tag) log.Logger {
	return busyFilter{l: log.With(f.l, tags...), locked: f.locked || busy(tags), file: f.file}
}
