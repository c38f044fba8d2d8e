package dirlock_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/internal/dirlock"
)

// TestMain lets the test binary hold a lock as another process: with
// DIRLOCK_HOLD set it takes the lock in that directory, says so on stdout
// and waits to be killed.
func TestMain(m *testing.M) {
	if dir := os.Getenv("DIRLOCK_HOLD"); dir != "" {
		if _, err := dirlock.Acquire(dir, "test.lock"); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		select {}
	}
	os.Exit(m.Run())
}

// TestOneHolderAtATime (issue 37, item 4): a second holder is refused with
// the first one's pid and start time, until the first releases; a holder
// killed with SIGKILL leaves the lock free (the kernel releases it).
func TestOneHolderAtATime(t *testing.T) {
	dir := t.TempDir()
	first, err := dirlock.Acquire(dir, "test.lock")
	require.NoError(t, err)
	_, err = dirlock.Acquire(dir, "test.lock")
	var inUse *dirlock.InUseError
	require.ErrorAs(t, err, &inUse)
	require.Regexp(t, fmt.Sprintf(`^pid %d, started \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, os.Getpid()), inUse.Holder)
	require.ErrorContains(t, err, dir+"/test.lock is held by pid ")
	require.NoError(t, first.Release())
	second, err := dirlock.Acquire(dir, "test.lock")
	require.NoError(t, err, "released: free again")
	require.NoError(t, second.Release())

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DIRLOCK_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "held", strings.TrimSpace(line))
	_, err = dirlock.Acquire(dir, "test.lock")
	require.ErrorAs(t, err, &inUse)
	require.Contains(t, inUse.Holder, fmt.Sprintf("pid %d,", cmd.Process.Pid), "the message names the other process")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait() // killed: its exit error is expected
	third, err := dirlock.Acquire(dir, "test.lock")
	require.NoError(t, err, "the kernel released the killed holder's lock")
	require.NoError(t, third.Release())
}
