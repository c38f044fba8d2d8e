// Package dirlock gives one process at a time a directory: an exclusive OS
// file lock (flock) on a file in it, which the kernel releases when the
// process ends, a SIGKILL included, so a crash never leaves a directory
// locked. The file names its holder (pid and start time) for the message
// another process gets.
package dirlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Lock is a held lock on a directory.
type Lock struct{ f *os.File }

// InUseError is returned by Acquire when another process holds the lock.
type InUseError struct {
	Path   string // the lock file
	Holder string // "pid 1234, started 2026-12-05T11:40:00Z", as the holder wrote it
}

func (e *InUseError) Error() string {
	h := e.Holder
	if h == "" {
		h = "a process that has not named itself yet"
	}
	return fmt.Sprintf("%s is held by %s", e.Path, h)
}

// errHeld is what tryLock returns when another open file holds the lock.
var errHeld = errors.New("dirlock: held")

// Acquire takes the lock file name in dir, or returns an *InUseError
// naming the process that holds it. It does not wait.
func Acquire(dir, name string) (*Lock, error) {
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dirlock: %w", err)
	}
	if err := tryLock(f); err != nil {
		f.Close()
		if errors.Is(err, errHeld) {
			b, _ := os.ReadFile(path) // the holder's name is a courtesy: without it the error still says the lock is held
			return nil, &InUseError{Path: path, Holder: strings.TrimSpace(string(b))}
		}
		return nil, fmt.Errorf("dirlock: lock %s: %w", path, err)
	}
	holder := fmt.Sprintf("pid %d, started %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(holder), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dirlock: write %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Release gives the lock up; the file stays, naming its last holder.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
