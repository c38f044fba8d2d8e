package serverlog

import (
	"bytes"
	"errors"
	"os"
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
	l := WithoutBusy(lines{&got}, "temporal.log")
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

// TestFatalGoesToStandardError: the server's fatal line (the one it writes
// before it ends the process) is copied to standard error with its tags and
// the server log's path, and still reaches the log.
func TestFatalGoesToStandardError(t *testing.T) {
	var out bytes.Buffer
	fatalOut = &out
	t.Cleanup(func() { fatalOut = os.Stderr })
	var got []string
	l := log.With(WithoutBusy(lines{&got}, "/data/temporal.log"), tag.NewStringTag("service", "history"))
	l.Fatal("Failed to start gRPC listener", tag.Error(errors.New("bind: address already in use")), tag.NewStringTag("address", "127.0.0.1:25758"))
	require.Equal(t, []string{"fatal Failed to start gRPC listener"}, got)
	require.Equal(t, "clinevo: the embedded Temporal server stops the process: Failed to start gRPC listener "+
		"(error=bind: address already in use, address=127.0.0.1:25758) (server log: /data/temporal.log)\n", out.String())
}
