package freeport

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPortSkipsReservations: with every port of the range reserved but
// three (one of them reserved until a moment already past), Port returns
// exactly those three, then fails naming the reservation file; the file then
// holds the three as reserved and has lost its expired and unreadable lines.
func TestPortSkipsReservations(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	now := time.Now().Unix()
	var free []int
	for p := portLow; p < portHigh && len(free) < 3; p += 97 {
		if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err == nil {
			l.Close()
			free = append(free, p)
		}
	}
	require.Len(t, free, 3)
	var b strings.Builder
	b.WriteString("not a reservation\n")
	for p := portLow; p < portHigh; p++ {
		switch p {
		case free[0], free[1]:
		case free[2]:
			fmt.Fprintf(&b, "%d %d\n", p, now-1)
		default:
			fmt.Fprintf(&b, "%d %d\n", p, now+600)
		}
	}
	require.NoError(t, os.WriteFile(ReservationFile(), []byte(b.String()), 0o600))

	var got []int
	for range 3 {
		p, err := Port("127.0.0.1")
		require.NoError(t, err)
		got = append(got, p)
	}
	sort.Ints(got)
	require.Equal(t, free, got)
	_, err := Port("127.0.0.1")
	require.ErrorContains(t, err, ReservationFile())

	data, err := os.ReadFile(ReservationFile())
	require.NoError(t, err)
	held := map[int]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var p int
		var until int64
		_, err := fmt.Sscanf(line, "%d %d", &p, &until)
		require.NoError(t, err, "line %q", line)
		held[p] = until
	}
	require.Len(t, held, portHigh-portLow, "every port reserved, each once")
	for _, p := range free {
		require.Greater(t, held[p], now+int64(reservationTTL/time.Second)-60, "port %d reserved for ten minutes", p)
	}
}

// TestPortsUnderTheLock: eight drawers at once (each opens the file on
// its own, as another process would) draw 160 ports; none is drawn twice and
// the file keeps all 160 reservations (a rewrite without the lock loses some).
func TestPortsUnderTheLock(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				p, err := Port("127.0.0.1")
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				if seen[p] {
					errs <- fmt.Errorf("port %d drawn twice", p)
				}
				seen[p] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, seen, 160)
	f, err := os.Open(filepath.Join(os.TempDir(), filepath.Base(ReservationFile())))
	require.NoError(t, err)
	defer f.Close()
	require.Len(t, readReservations(f, time.Now()), 160)
}
