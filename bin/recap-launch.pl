# The hook launcher's transport (bin/recap-hook.sh runs it when /usr/bin/perl is there):
#   /usr/bin/perl -T -f -C0 -- recap-launch.pl SOCKET AGENT WAIT_MS ANSWER_IN_MS
# It makes the exchange the launcher's curl makes, and prints what curl prints, so the shell's
# decisions stay one piece of logic for both: POST /hook/v1/AGENT on the launcher's Unix
# socket with Expect: 100-continue, stdin sent (chunked) only once the daemon has said
# 100 Continue; then the answer's body, and a last line `<http_code> <bytes taken from stdin>`;
# exit codes as curl's where the shell tells them apart: 0 done, 7 could not connect (stdin
# unread), 28 out of time, anything else failed.
# Perl with nothing loaded (no `use`: every module that speaks sockets or time is compiled
# code, as slow to load as curl), so the socket address is packed here and the clock is
# select's. -T keeps PERL5OPT, PERL5LIB, PERLLIB and PERLIO from changing this program, -C0
# keeps PERL_UNICODE from it, -f keeps a sitecustomize.pl out, and every handle is binary.

$SIG{PIPE} = 'IGNORE';
my $http = 0;     # the final answer's HTTP status, 000 while there is none
my $taken = 0;    # bytes taken from stdin: once any are, the payload is no longer the shell's to hand on
my $body = '';    # the final answer's body
my $in = '';      # bytes read from the socket and not yet parsed
my $left = 0;     # seconds left to wait, as select counts them (see wait_for)

# Prints the body and the shell's last line, and exits with curl's code for the outcome.
sub done {
  my ($code) = @_;
  $SIG{ALRM} = 'IGNORE';
  my $out = $body . sprintf("\n%03d %d", $http, $taken);
  while (length $out) {
    my $n = syswrite(STDOUT, $out);
    if (!defined $n) { next if $! == 4; last }    # 4: EINTR on Linux and macOS
    substr($out, 0, $n, '');
  }
  exit $code;
}

my ($path, $agent, $wait, $answer_in) = @ARGV;
# The shell's arguments, checked and so untainted (-T refuses a tainted address to connect to).
defined $wait && $wait =~ /\A([0-9]{1,6})\z/ or done(2);
$wait = $1;
defined $answer_in && $answer_in =~ /\A([0-9]{1,6})\z/ or done(2);
$answer_in = $1;
defined $agent && $agent =~ /\A([a-z]{1,32})\z/ or done(2);
$agent = $1;
defined $path && $path =~ /\A([^\0]+)\z/s or done(2);
$path = $1;

# struct sockaddr_un, AF_UNIX = 1: a 16-bit family then the path on Linux, a length byte and
# a family byte on macOS and the BSDs. A path longer than sun_path, or another system, is a
# socket curl could not connect to either: the shell hands the call to recap-hook.
my $address;
if ($^O eq 'linux') {
  length($path) < 108 or done(7);
  $address = pack('S', 1) . $path . "\0";
} elsif ($^O =~ /\A(?:darwin|freebsd|openbsd|netbsd|dragonfly)\z/) {
  length($path) < 104 or done(7);
  $address = pack('CC', length($path) + 3, 1) . $path . "\0";
} else {
  done(7);
}

# The wait is bounded twice: each step waits in select for no longer than what is left, which
# select itself counts down on Linux (its second value); and an alarm, whole seconds only
# without Time::HiRes, rounds the wait up as the bound for the rest (a connect to a full
# backlog, a blocked write, and systems whose select does not count down). A daemon that
# never says 100 Continue costs one select, timed to the millisecond everywhere, so
# recap-hook keeps the rest of the deadline; only a daemon that took the payload and then
# trickles or stalls can hold this up to a second past the wait, and that call is denied.
$left = $wait / 1000;
$SIG{ALRM} = sub { done(28) };
alarm(int(($wait + 999) / 1000));

binmode STDIN;
binmode STDOUT;
# AF_UNIX = 1, SOCK_STREAM = 1 on Linux, macOS and the BSDs.
socket(S, 1, 1, 0) or done(7);
binmode S;
connect(S, $address) or done($! == 4 ? 28 : 7);

# Waits until FH can be read (or written, with WRITE set), within the time left.
sub wait_for {
  my ($fh, $write) = @_;
  my $bits = '';
  vec($bits, fileno($fh), 1) = 1;
  while (1) {
    $left > 0 or done(28);
    my ($r, $w) = $write ? (undef, $bits) : ($bits, undef);
    my ($n, $rest) = select($r, $w, undef, $left);
    $left = $rest if defined $rest && $rest < $left;
    return if $n > 0;
    done(28) if $n == 0;
  }
}

# Writes DATA to the daemon; false when the connection fails.
sub send_all {
  my ($data) = @_;
  while (length $data) {
    wait_for(\*S, 1);
    my $n = syswrite(S, $data, 16384);
    if (!defined $n) { next if $! == 4; return 0 }
    substr($data, 0, $n, '');
  }
  return 1;
}

# Reads more of the daemon's answer into $in: the bytes read, 0 at its end.
sub receive {
  while (1) {
    wait_for(\*S, 0);
    my $n = sysread(S, $in, 65536, length $in);
    if (!defined $n) { next if $! == 4; return 0 }
    return $n;
  }
}

# Sends stdin as chunks until its end; stops early if the connection fails (the answer, or its
# absence, then says what happened).
sub send_stdin {
  while (1) {
    wait_for(\*STDIN, 0);
    my $chunk = '';
    my $n = sysread(STDIN, $chunk, 65536);
    if (!defined $n) { next if $! == 4; done(26) }
    $taken += $n;
    return send_all("0\r\n\r\n") if $n == 0;
    send_all(sprintf("%x\r\n", $n) . $chunk . "\r\n") or return;
  }
}

# The status and the header lines of the next response; curl's 52 if none of it came.
sub response_head {
  while (1) {
    my $end = index($in, "\r\n\r\n");
    if ($end >= 0) {
      my $head = substr($in, 0, $end + 4, '');
      $head =~ m{\AHTTP/1\.[01] ([0-9]{3})[ \r]} or done(8);
      return ($1, $head);
    }
    length($in) < 65536 or done(8);
    receive() or done(length($in) ? 56 : 52);
  }
}

send_all("POST /hook/v1/$agent HTTP/1.1\r\nHost: recap\r\nContent-Type: application/json\r\n"
  . "X-Recap-Deadline-Ms: $answer_in\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
  or done(55);
my $sent = 0;
while (1) {
  my ($status, $head) = response_head();
  if ($status < 200) {
    # 100 Continue: the daemon is there to read the payload. Any other 1xx is passed over.
    if ($status == 100 && !$sent) { send_stdin(); $sent = 1 }
    next;
  }
  $http = $status;
  # An answer is read by its length, so a cut one is a failure (curl's 18), never a verdict.
  # Only a 200's body is ever printed; any other status is a call the daemon did not take.
  if ($head =~ /^content-length:[ \t]*([0-9]{1,9})[ \t]*\r$/mi && $head !~ /^transfer-encoding:/mi) {
    my $length = $1;
    while (length($in) < $length) { receive() or done(18) }
    $body = substr($in, 0, $length) if $status == 200;
  } elsif ($status == 200) {
    done(8);
  }
  done(0);
}
