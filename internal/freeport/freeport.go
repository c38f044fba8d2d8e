// Package freeport draws free loopback ports for clinevo's embedded Temporal
// servers, reserved across the processes of one user so that servers
// starting at once never draw the same port.
package freeport

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Ports are drawn at random in [portLow, portHigh), below the kernel's
// ephemeral range (32768 and up on Linux): a port the kernel hands out for
// ":0" is the next one it hands to any outgoing connection of any process,
// which may take it before the server binds it.
const portLow, portHigh = 20000, 32000

// reservationTTL is how long a drawn port stays reserved against every other
// clinevo process on the machine (clinevo's own choice: longer than any
// server takes to bind its ports, and than a test keeps a port for a server
// it restarts; a bound port is refused by the probe anyway).
const reservationTTL = 10 * time.Minute

// ReservationFile is the file that holds the reserved ports, one
// "port unix-seconds-until" line each, for the processes of one user; it
// is read and rewritten under an advisory lock (see lockFile).
func ReservationFile() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("clinevo-ports-%d", os.Getuid()))
}

// Port returns a port that is free on ip now, drawn at random in
// [20000, 32000) (see portLow) and reserved for ten minutes: no other clinevo process of the
// same user draws it in that time (ReservationFile), so two servers starting at
// once on one machine (the test suite starts dozens) never pick the same port
// and lose it to each other between the draw and the bind. Temporal ends the
// whole process when a listener cannot bind.
func Port(ip string) (int, error) {
	ps, err := Ports(ip, 1)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// Ports draws n distinct free ports under one hold of the lock. Where the
// file cannot be opened or locked it draws them unreserved, as before.
func Ports(ip string, n int) ([]int, error) {
	now := time.Now()
	f, err := os.OpenFile(ReservationFile(), os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		if err = lockFile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return draw(ip, n, nil)
	}
	defer f.Close() // closing releases the lock
	held := readReservations(f, now)
	ps, err := draw(ip, n, held)
	if err != nil {
		return nil, err
	}
	until := now.Add(reservationTTL).Unix()
	for _, p := range ps {
		held[p] = until
	}
	// A failed rewrite loses reservations, never a port: the next draw
	// probes anyway.
	_ = writeReservations(f, held)
	return ps, nil
}

// draw returns n distinct ports that are not in held and that a probe
// listener can bind on ip now: it walks the range once from a random port.
func draw(ip string, n int, held map[int]int64) ([]int, error) {
	span := portHigh - portLow
	from := rand.IntN(span)
	var ps []int
	for i := 0; i < span && len(ps) < n; i++ {
		p := portLow + (from+i)%span
		if _, ok := held[p]; ok {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p))); err == nil {
			l.Close()
			ps = append(ps, p)
		}
	}
	if len(ps) < n {
		return nil, fmt.Errorf("freeport: %d free ports wanted on %s between %d and %d, %d found (%d reserved in %s)",
			n, ip, portLow, portHigh-1, len(ps), len(held), ReservationFile())
	}
	return ps, nil
}

// readReservations returns the reservations in f that have not expired at
// now. The file is clinevo's scratch space: a line it cannot read (a file cut
// by a crash) is dropped, and the rewrite leaves it out.
func readReservations(f *os.File, now time.Time) map[int]int64 {
	held := map[int]int64{}
	if _, err := f.Seek(0, 0); err != nil {
		return held
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		port, until, ok := strings.Cut(sc.Text(), " ")
		p, err1 := strconv.Atoi(port)
		u, err2 := strconv.ParseInt(until, 10, 64)
		if ok && err1 == nil && err2 == nil && u > now.Unix() {
			held[p] = u
		}
	}
	return held
}

func writeReservations(f *os.File, held map[int]int64) error {
	var b strings.Builder
	for p, u := range held {
		fmt.Fprintf(&b, "%d %d\n", p, u)
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(b.String()), 0)
	return err
}
