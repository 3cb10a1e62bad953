package main

import (
	"flag"

	"github.com/pqscan/pqscan"
)

// scopeFlags are --allow and --allow-redirect: what a table's metadata, a listing or a
// redirect may make the CLI fetch besides the sources named (pqscan.Options.AllowPrefixes,
// RedirectOrigins). Anything else fails before a request is sent. They carry the other
// option every opening command shares, --metadata-cache (metacache.go).
type scopeFlags struct {
	allow, redirects []string
	cache            cacheFlags
}

func (s *scopeFlags) register(fs *flag.FlagSet) {
	s.cache.register(fs)
	fs.Func("allow", "PREFIX,… locations besides the sources named that a table may make pqscan read (URL prefixes, local folders)", func(v string) error {
		s.allow = append(s.allow, splitList(v)...)
		return nil
	})
	fs.Func("allow-redirect", "ORIGIN,… origins a redirect may lead to (default: only within the sources named and --allow)", func(v string) error {
		s.redirects = append(s.redirects, splitList(v)...)
		return nil
	})
}

func (s *scopeFlags) apply(o pqscan.Options) pqscan.Options {
	o.AllowPrefixes, o.RedirectOrigins = s.allow, s.redirects
	return s.cache.apply(o)
}
