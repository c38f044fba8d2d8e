package llm

// Waiting is the number of calls of c waiting for a concurrency slot.
func Waiting(c *Client) int64 { return c.waiting.Load() }

// HasTemplate reports whether the package holds the named prompt template.
func HasTemplate(name string) bool { return shared.Has(name) }
