package devserver

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

type lines struct{ got *[]string }

func (l lines) add(level, msg string)           { *l.got = append(*l.got, level+" "+msg) }
func (l lines) Debug(msg string, _ ...tag.Tag)  { l.add("debug", msg) }
func (l lines) Info(msg string, _ ...tag.Tag)   { l.add("info", msg) }
func (l lines) Warn(msg string, _ ...tag.Tag)   { l.add("warn", msg) }
func (l lines) Error(msg string, _ ...tag.Tag)  { l.add("error", msg) }
func (l lines) DPanic(msg string, _ ...tag.Tag) { l.add("dpanic", msg) }
func (l lines) Panic(msg string, _ ...tag.Tag)  { l.add("panic", msg) }
func (l lines) Fatal(msg string, _ ...tag.Tag)  { l.add("fatal", msg) }

// TestWithoutBusy: a warning or error whose error, given with the line or
// earlier with With, says the database was locked is dropped (the two
// messages the server writes, SQLITE_BUSY and SQLITE_BUSY_SNAPSHOT); every
// other line is kept, a locked one under another logger too.
func TestWithoutBusy(t *testing.T) {
	var got []string
	l := withoutBusy(lines{&got}, "temporal.log")
	locked := errors.New("updateCurrentExecution failed. Error: database is locked (5) (SQLITE_BUSY)")
	snapshot := errors.New("updateCurrentExecution failed. Error: database is locked (517)")
	other := errors.New("shard status unknown")

	l.Error("Operation failed with internal error.", tag.Error(locked))
	l.Warn("Operation failed with internal error.", tag.Error(snapshot))
	log.With(l, tag.Error(locked), tag.Attempt(2)).Warn("Fail to process task")
	log.With(log.With(l, tag.Error(snapshot)), tag.Attempt(3)).Error("Critical error processing task, retrying.")
	l.Error("Persistent fetch operation Failure", tag.Error(other))
	log.With(l, tag.Error(other)).Warn("Fail to process task")
	l.Warn("Failed to poll for task.")
	l.Info("started", tag.Error(locked))
	sibling := log.With(l, tag.Attempt(1))
	log.With(l, tag.Error(locked)).Warn("dropped")
	sibling.Warn("kept beside a locked one")
	require.Equal(t, []string{
		"error Persistent fetch operation Failure",
		"warn Fail to process task",
		"warn Failed to poll for task.",
		"info started",
		"warn kept beside a locked one",
	}, got)
}
