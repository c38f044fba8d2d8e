// Package sqliteuri spells a file path as the path of a SQLite "file:" URI,
// for every SQLite file clinevo opens (the embedded Temporal server's, the
// results store's and the memory bank's).
package sqliteuri

import "strings"

// escaper escapes what ends or changes a URI's path: SQLite reads the path of
// "file:PATH?query" up to the first "?" or "#" and decodes every %HH in it
// (https://www.sqlite.org/uri.html, "URI Format"), and modernc.org/sqlite
// takes the query from the first "?". Unescaped, a data directory named
// "run#1" would open the file "run" beside it, which "run#2" opens too.
var escaper = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// Path is path escaped for "file:" + Path(path) + "?" + query. A path that
// starts with "//" would read as a URI authority, so it is given one slash.
func Path(path string) string {
	for strings.HasPrefix(path, "//") {
		path = path[1:]
	}
	return escaper.Replace(path)
}

// File is the "file:" URI of path with the given query ("" for none).
func File(path, query string) string {
	u := "file:" + Path(path)
	if query != "" {
		u += "?" + query
	}
	return u
}
