package faultserver

import (
	"errors"
	"net"
	"net/http"
	"time"
)

// Start serves s on addr (e.g. "127.0.0.1:0") and on a second 127.0.0.1 port, another origin
// that the redirect mode points to (unless Options.RedirectBase was set). It returns the base
// URL of the first listener ("http://127.0.0.1:port"). Close stops both.
func (s *Server) Start(addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln1, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln1.Close()
		return "", err
	}
	s.mu.Lock()
	if s.opt.RedirectBase == "" {
		s.opt.RedirectBase = "http://" + ln2.Addr().String()
	}
	for _, ln := range []net.Listener{ln1, ln2} {
		srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
		s.servers = append(s.servers, srv)
		go srv.Serve(ln)
	}
	s.mu.Unlock()
	return "http://" + ln1.Addr().String(), nil
}

// RedirectBase returns the base URL the redirect mode sends clients to.
func (s *Server) RedirectBase() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opt.RedirectBase
}

// Close stops the listeners started by Start and closes their connections.
func (s *Server) Close() error {
	s.mu.Lock()
	srvs := s.servers
	s.servers = nil
	s.mu.Unlock()
	var errs []error
	for _, srv := range srvs {
		errs = append(errs, srv.Close())
	}
	return errors.Join(errs...)
}
