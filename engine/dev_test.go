package engine_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/engine/enginetest"
)

// dialQuietly dials a frontend as the CLI does, without its logs.
func dialQuietly(t config.TemporalConfig) (client.Client, error) {
	return client.Dial(client.Options{HostPort: t.Address, Namespace: t.Namespace, Logger: quietLogger{}})
}

// freshWorker is a worker of fresh stores, on namespace default and clinevo's
// task queue.
func freshWorker(t *testing.T, address string) engine.Worker {
	return engine.Worker{Stores: engine.Options{DataDir: t.TempDir()}, Temporal: config.TemporalConfig{Address: address, Namespace: "default", TaskQueue: contract.TaskQueue},
		Dial: dialQuietly, Log: slog.New(slog.DiscardHandler)}
}

// playOne plays a one-episode stream on the frontend at address and waits
// for its end.
func playOne(t *testing.T, address, run string) {
	c, err := dialQuietly(config.TemporalConfig{Address: address, Namespace: "default"})
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	r, err := engine.StartStream(ctx, c, nil, "", contract.StreamSpec{RunID: run, Corpus: "builtin:stream", Limit: 1, StageSize: 1})
	require.NoError(t, err)
	require.NoError(t, r.Get(ctx, nil))
}

// recorded is how many episodes the results store of dir records.
func recorded(t *testing.T, dir string) int {
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, ReadOnly: true})
	require.NoError(t, err)
	defer eng.Close()
	episodes, _, err := eng.Results.Counts(context.Background())
	require.NoError(t, err)
	return episodes
}

// TestDev: `clinevo dev` runs a server whose address is in the data
// directory's DevFile while it runs, says where everything is, and runs a
// worker that plays what is started on it; without its worker it only
// serves. The DevFile goes when it stops.
func TestDev(t *testing.T) {
	t.Parallel() // see TestMain
	for _, noWorker := range []bool{false, true} {
		dir := t.TempDir()
		w := freshWorker(t, "")
		w.Stores.DataDir = dir
		d := engine.Dev{Worker: w, Server: devserver.Options{DataDir: dir, Port: enginetest.FreePort(t), Namespace: "default"}, NoWorker: noWorker}
		ctx, stop := context.WithCancel(context.Background())
		var out, errOut syncBuffer
		done := make(chan error, 1)
		go func() { done <- d.Run(ctx, &out, &errOut) }()
		ready := "worker             task queue " + contract.TaskQueue + "\n"
		if noWorker {
			ready = "worker             not started (--worker=false)\n"
		}
		enginetest.Eventually(t, time.Minute, "dev ready", func() bool { return strings.HasSuffix(out.String(), ready) })
		b, err := os.ReadFile(filepath.Join(dir, config.DevFile))
		require.NoError(t, err)
		address := strings.Fields(strings.TrimPrefix(out.String(), "Temporal frontend  "))[0]
		require.Contains(t, string(b), `"address": "`+address+`"`)
		require.Contains(t, out.String(), "results            "+filepath.Join(dir, "results.db")+"\n")
		if !noWorker {
			playOne(t, address, "dev1")
			require.Equal(t, 1, recorded(t, dir), "dev's worker played the episode")
		}
		stop()
		require.NoError(t, <-done)
		require.NoFileExists(t, filepath.Join(dir, config.DevFile))
		require.Empty(t, errOut.String())
	}
}

// TestWorkerRun: a worker refuses a namespace that lacks clinevo's search
// attributes, saying how to add them; on a complete one it says what it
// runs on and plays what is started, until it is stopped.
func TestWorkerRun(t *testing.T) {
	t.Parallel() // see TestMain
	env := enginetest.Start(t)
	env.Worker.Stop() // the worker under test is Worker.Run's
	ctx := context.Background()
	address := env.Server.Address()
	_, err := env.Client.OperatorService().RemoveSearchAttributes(ctx, &operatorservice.RemoveSearchAttributesRequest{Namespace: "default",
		SearchAttributes: []string{"ClinevoOutcome"}})
	require.NoError(t, err)
	var out, note syncBuffer
	err = freshWorker(t, address).Run(ctx, &out, &note)
	require.EqualError(t, err, devserver.MissingHelp("default", []string{"ClinevoOutcome"}))
	require.NoError(t, devserver.AddMissingSearchAttributes(ctx, env.Client, "default"))

	w := freshWorker(t, address)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx, &out, &note) }()
	enginetest.Eventually(t, time.Minute, "the worker running", func() bool { return strings.Contains(out.String(), "worker on ") })
	require.Equal(t, "worker on "+address+" (namespace default), task queue clinevo, data "+w.Stores.DataDir+", results "+
		filepath.Join(w.Stores.DataDir, "results.db")+"\n", out.String())
	playOne(t, address, "w1")
	stop()
	require.NoError(t, <-done)
	require.Equal(t, 1, recorded(t, w.Stores.DataDir))
	require.Empty(t, note.String(), "the frontend answered at once")
}

// TestDemo plays the demo on a pseudo-terminal, as a user sees it: the
// progress is one block redrawn in place (every redraw moves up over exactly
// the frame before it, so nothing was printed between two frames), no log
// line reaches the terminal (they go to clinevo.log, which the demo names),
// and the last frame is final: every condition completed, its bar full, its
// count the n of the summary below it.
func TestDemo(t *testing.T) {
	t.Parallel() // see TestMain
	dir := t.TempDir()
	w := freshWorker(t, "")
	w.Stores.DataDir = dir
	d := engine.Demo{Worker: w, Settings: enginetest.Set(t).DefaultSettings(), Resize: true, Limit: 2, StageSize: 1, Logs: dialLogging}
	term := onATerminal(t)
	require.NoError(t, d.Run(context.Background(), term.tty, term.tty))
	out := term.close()

	require.Contains(t, out, "clinevo demo: embedded Temporal, built-in roles, no network\ndata: "+dir+"\n")
	require.Contains(t, out, "log:  "+filepath.Join(dir, engine.LogFile)+" (the worker's lines)\n")
	require.Contains(t, out, "warning: no clinical condition comes back within the first 2 cases of builtin:stream@7")
	require.Regexp(t, `temporal frontend 127\.0\.0\.1:\d+; experiment quick started: E0, E1, E2, H0, H3\n`, out)
	require.Contains(t, out, "\nreport:  "+filepath.Join(dir, "report", "index.html")+"\n")
	require.Contains(t, out, "         clinevo --data-dir "+dir+" episode show quick-E1/p1/s01/e0001-")
	require.FileExists(t, filepath.Join(dir, "report", "index.html"))
	require.NotContains(t, out, "level=", "a log line on the terminal")
	logs, err := os.ReadFile(filepath.Join(dir, engine.LogFile))
	require.NoError(t, err)
	require.Contains(t, string(logs), `msg="stream started"`)

	final := redrawnInPlace(t, out)
	for _, name := range []string{"E0", "E1", "E2", "H0", "H3"} {
		row := regexp.MustCompile(`(?m)^` + name + ` +completed +\[=+\] +(\d+)/(\d+)  S \d\.\d{3}  ETA -$`).FindStringSubmatch(final)
		require.NotNil(t, row, "%s in the last frame:\n%s", name, final)
		require.Equal(t, row[1], row[2], name)
		require.Regexp(t, `(?m)^`+name+` +(stream|heldout) +n=`+row[1]+` `, out, "%s: the summary's n is the last frame's count", name)
	}
}

// redrawnInPlace checks that every redraw of the progress block (mpb moves the
// cursor up over the frame before it, then clears to the end of the screen)
// moves up over exactly as many lines as that frame had, and returns the last
// frame.
func redrawnInPlace(t *testing.T, out string) string {
	redraw := regexp.MustCompile(`\x1b\[(\d+)A\x1b\[J`)
	marks := redraw.FindAllStringSubmatchIndex(out, -1)
	require.NotEmpty(t, marks, "the progress was never redrawn in place")
	for i, m := range marks[1:] {
		frame := out[marks[i][1]:m[0]]
		up, err := strconv.Atoi(out[m[2]:m[3]])
		require.NoError(t, err)
		require.Equal(t, up, strings.Count(frame, "\n"), "redraw %d moves up %d lines over a frame of:\n%s", i+2, up, frame)
	}
	last := out[marks[len(marks)-1][1]:]
	return last[:strings.Index(last, "\n\n")+1]
}

// terminal is a pseudo-terminal whose output the test reads.
type terminal struct {
	tty  *os.File
	read chan string
}

// onATerminal opens a pseudo-terminal of 120 columns.
func onATerminal(t *testing.T) *terminal {
	ptmx, tty, err := pty.Open()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ptmx.Close() })
	require.NoError(t, pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}))
	term := &terminal{tty: tty, read: make(chan string, 1)}
	go func() {
		var b strings.Builder
		_, _ = io.Copy(&b, ptmx) // ends with EIO once the terminal's side is closed
		term.read <- b.String()
	}()
	return term
}

// close closes the terminal's side and returns what it showed, its line ends
// as the program wrote them.
func (term *terminal) close() string {
	_ = term.tty.Close()
	return strings.ReplaceAll(<-term.read, "\r\n", "\n")
}

// dialLogging dials as the CLI does, its logs in text on w.
func dialLogging(w io.Writer) func(config.TemporalConfig) (client.Client, error) {
	return func(t config.TemporalConfig) (client.Client, error) {
		return client.Dial(client.Options{HostPort: t.Address, Namespace: t.Namespace, Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(w, nil)))})
	}
}
