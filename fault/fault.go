// Package fault is clinevo's one classification of failures of what a run
// depends on (a model endpoint, the results store, the memory bank): each
// failure has a class that says whether waiting helps. Transient classes
// (unavailable, timeout, server_error, rate_limited, unknown) are waited out
// for as long as the run's durability settings allow; permanent ones
// (unauthorized, invalid, schema) fail at once with what to fix. The model
// client, both results stores and both memory backends tag their errors here,
// and the activities turn the tag into Temporal's retry semantics. It imports
// only the standard library.
package fault

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// Class says how a dependency failed.
type Class string

// Classes of failures.
const (
	// Unavailable: the dependency cannot be reached or refuses work for now
	// (connection refused or reset, DNS, a database restarting, a busy file).
	Unavailable Class = "unavailable"
	// Timeout: the dependency did not answer in time.
	Timeout Class = "timeout"
	// ServerError: the dependency answered with its own failure (HTTP 5xx).
	ServerError Class = "server_error"
	// RateLimited: the dependency asked to be called later (HTTP 429).
	RateLimited Class = "rate_limited"
	// Unknown: a failure no rule recognises. It is waited out like the
	// transient ones (what Temporal does with any error by default), and shown
	// while it is, so an operator sees it.
	Unknown Class = "unknown"

	// Unauthorized: the dependency refused the credentials (HTTP 401 or 403,
	// a wrong database password, a missing privilege).
	Unauthorized Class = "unauthorized"
	// Invalid: the request can never succeed as it is (HTTP 400 or 404, a
	// malformed spec, a missing corpus, a read-only store).
	Invalid Class = "invalid"
	// Schema: stored data or a store's layout does not match this build (a
	// schema or embedder mismatch, a record that does not decode).
	Schema Class = "schema"
)

// Transient reports whether waiting may cure a failure of class c.
func (c Class) Transient() bool {
	switch c {
	case Unauthorized, Invalid, Schema:
		return false
	}
	return true
}

// Error is a classified failure of a dependency.
type Error struct {
	// Dependency names what failed: results/sqlite, results/postgres,
	// memory/local, memory/qdrant, model roles.<role>. It never holds a key or
	// a password.
	Dependency string
	Class      Class
	// Fix says what an operator must change, for a permanent failure.
	Fix string
	// RetryAfter is how long the dependency asked to be left alone (a 429's
	// Retry-After); zero: the run's own backoff.
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Fix != "" {
		return e.Err.Error() + ": " + e.Fix
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// New tags err as a failure of dependency of class c; nil stays nil.
func New(dependency string, c Class, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Dependency: dependency, Class: c, Err: err}
}

// Permanent tags err as a permanent failure of dependency, with what to fix.
func Permanent(dependency string, c Class, fix string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Dependency: dependency, Class: c, Fix: fix, Err: err}
}

// Of classifies err: the outermost *Error in its chain, else what the
// standard library's errors in it say (Network), else Unknown. It returns nil
// for a nil error.
func Of(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	c, ok := Network(err)
	if !ok {
		c = Unknown
	}
	return &Error{Class: c, Err: err}
}

// Network classifies what the standard library says about err: refused,
// reset or unreachable connections and name lookups are Unavailable, ended
// deadlines and network timeouts Timeout, a connection closed mid-answer
// Unavailable. ok is false when nothing in err's chain is one of them.
func Network(err error) (Class, bool) {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return Timeout, true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.As(err, &dns):
		return Unavailable, true
	case errors.As(err, &ne) && ne.Timeout():
		return Timeout, true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return Unavailable, true
	}
	return "", false
}
