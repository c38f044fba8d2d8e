package enginetest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinevo/clinevo/config"
)

// Server is a test's Temporal server.
type Server interface {
	// Address is the frontend's host:port.
	Address() string
}

// startServer starts a test's server on a data directory and frontend port,
// stopped at the test's cleanup: a child process unless the package chose
// the test process (inprocess.Use).
var startServer = func(t testing.TB, dataDir string, port int) Server { return StartChild(t, dataDir, port) }

// SetServer makes every later Start start its server with start (see
// engine/enginetest/inprocess); call it from TestMain.
func SetServer(start func(t testing.TB, dataDir string, port int) Server) { startServer = start }

// Child is a Temporal server in a child process: `clinevo dev --worker=false`
// on a test's data directory. A package whose tests start a few servers runs
// them as children, so that its test binary does not link the embedded
// server (a link of it costs about 15 s of processor time); a child costs
// about 0.3 s more processor time than a server in the test process, so a
// package that starts dozens keeps them in process (inprocess.Use). The child
// dies with the test process (on Linux; see pdeathsig) and is killed at the
// test's cleanup.
type Child struct {
	addr    string
	dataDir string
	log     string // the child's stdout and stderr
	cmd     *exec.Cmd
	done    chan struct{}
}

// Address is the frontend's host:port.
func (s *Child) Address() string { return s.addr }

// Stop kills the server with SIGKILL and reaps it: its data directory is a
// test's own and is thrown away, so there is nothing to shut down gracefully.
func (s *Child) Stop() {
	_ = s.cmd.Process.Kill()
	<-s.done
}

// serverWait is how long a child server may take to come up (clinevo's own
// choice: a loaded two-core machine starts one in about a second).
const serverWait = 2 * time.Minute

// StartChild starts a child server on dataDir with its frontend on port, and
// returns when it serves (its address file is written). A failure to start
// fails the test and shows the child's output and the server's log.
func StartChild(t testing.TB, dataDir string, port int) *Child {
	t.Helper()
	bin := Binary(t)
	logPath := filepath.Join(dataDir, "dev.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "--data-dir", dataDir, "dev", "--port", strconv.Itoa(port), "--worker=false")
	cmd.Dir = dataDir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = pdeathsig()
	if err := cmd.Start(); err != nil {
		t.Fatalf("enginetest: start %s dev: %v", bin, err)
	}
	s := &Child{addr: "127.0.0.1:" + strconv.Itoa(port), dataDir: dataDir, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.Stop)
	devFile := filepath.Join(dataDir, config.DevFile)
	deadline := time.NewTimer(serverWait)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(devFile); err == nil {
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("enginetest: the Temporal server exited before it served (%v)\n%s", cmd.ProcessState, s.logs())
		case <-deadline.C:
			t.Fatalf("enginetest: the Temporal server did not serve within %v\n%s", serverWait, s.logs())
		case <-tick.C:
		}
	}
}

// logs returns the tails of the child's output and of the server's own log.
func (s *Child) logs() string {
	var b strings.Builder
	for _, f := range []string{s.log, filepath.Join(s.dataDir, "temporal.log")} {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", f, err)
			continue
		}
		fmt.Fprintf(&b, "%s (last 4 KB):\n%s\n", f, data[max(0, len(data)-4096):])
	}
	return b.String()
}

// childEnv is this process's environment without clinevo's own variables: a
// test may set CLINEVO_* for the commands it runs, and the server takes all it
// needs from its flags.
func childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLINEVO_") {
			out = append(out, kv)
		}
	}
	return out
}

var binary struct {
	once sync.Once
	path string
	err  error
}

// Binary returns a clinevo binary built from this checkout, once per test
// process, without DWARF (a shorter link; nothing debugs it). go build caches
// the link, so a warm build is a copy. The binary lives under the temporary
// directory at a path of this checkout's own, replaced atomically, so test
// processes of one checkout share it and those of two checkouts do not meet.
func Binary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() { binary.path, binary.err = build() })
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func build() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("clinevo-enginetest-%d", os.Getuid()), fmt.Sprintf("%x", sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("enginetest: %w", err)
	}
	f, err := os.CreateTemp(dir, "clinevo-*.tmp")
	if err != nil {
		return "", fmt.Errorf("enginetest: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp) // gone after the rename; left by a failed build
	cmd := exec.Command("go", "build", "-ldflags=-w", "-o", tmp, "./cmd/clinevo")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("enginetest: build clinevo in %s: %w\n%s", root, err, out)
	}
	bin := filepath.Join(dir, "clinevo")
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("enginetest: %w", err)
	}
	return bin, nil
}

// moduleRoot is the directory of the go.mod above the working directory (a
// test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("enginetest: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("enginetest: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("enginetest: no go.mod above the working directory")
		}
		dir = parent
	}
}
