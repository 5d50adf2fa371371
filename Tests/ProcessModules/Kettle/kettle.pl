#!/usr/bin/perl
# A kettle as a workbench module, written in Perl from docs/protocol.md alone (protocol 2):
# `boil MS` asks the host for a timer, and when it is due the water has boiled in every window
# on the kettle; `stop` cancels the timer; `look` shows the kettle as the module has it. `wall` plays someone switching the kettle on at the
# wall: the module says, unasked, that its switch at the wall saw an event (a live source, §19),
# which the host hands back with `live` to apply, live and on a replay alike; it answers first;
# change-after-reply says it right after the answer instead, undeclared-live sends changes
# without declaring live sources. commit-on-boil saves the boil count into the document when
# the water boils (the timer's `ok` commits it), stale-commit does so from a revision gone by. KETTLE_MODE makes it break a rule of protocol 2, for the host's tests
# (flood-timers, stray-update, bad-timer, flood-changes, timer-loop, reused-key, chatty,
# bad-capture), keep quiet at the wall (quiet-wall) or speak there only the first time (wall-once), or end badly: crash-in-timer exits when a
# timer is due without answering, exit-after-timer answers it and exits, exit-after-end answers
# the `end` of its last session and leaves (as a module may), crash-on-end exits when
# told a session ended, die-later exits 0.2 s after answering `boil`, fork-exit forks after its
# handshake and leaves its child to answer, fork-keep forks a child that holds its pipes and
# crashes at `boil` without answering (fork-keep-changed sends a change first); boil-once crashes at its second `boil`. opens-w2 opens a window of its own under the key w2
# from `boil`; escapes puts terminal escape sequences in its version, a refusal and a diagram.
# Writes that are not its own, for the host's tests of who may write what: foreign-commit's timer
# commits the catalog's `library`, unheld-commit's a kettle (`spare`) no window shows and no
# request handed it, foreign-window's `boil` opens a catalog window on `library`; far-timer sets
# its timer at the last millisecond a 64-bit number holds; sample-notes names its sample `notes`, as
# the editor names its own.
use strict;
use warnings;
use JSON::PP;

my $json = JSON::PP->new->canonical;
# KETTLE_MODE=daily is no fault: the boil's timer sets itself again a day on, every day.
my $mode = $ENV{KETTLE_MODE} // '';
my %sessions;    # session => {windows => {key => document}, kettles => {document => {...}}}
my %revisions;   # document => the revision the host last gave
my $walled = 0;
my $boiled = 0;

binmode STDIN;
binmode STDOUT;
$| = 1;

sub send_message {
  my ($message) = @_;
  my $body = $json->encode($message);
  print STDOUT pack('N', length $body), $body;
}

sub read_message {
  my $header = '';
  while (length $header < 4) {
    my $got = read(STDIN, $header, 4 - length $header, length $header);
    return undef unless $got;
  }
  my $length = unpack('N', $header);
  my $body = '';
  while (length $body < $length) {
    my $got = read(STDIN, $body, $length - length $body, length $body);
    return undef unless $got;
  }
  # A whole message that does not read, or is not an object, is answered with an error (§7).
  my $request = eval { $json->decode($body) };
  return (ref $request eq 'HASH') ? $request : {type => '(unreadable)'};
}

sub kettle {
  my ($session, $document) = @_;
  return $sessions{$session}{kettles}{$document} //= {state => 'cold', boils => 0};
}

sub window_result {
  my ($session, $key) = @_;
  my $document = $sessions{$session}{windows}{$key};
  my $kettle = kettle($session, $document);
  my $frame = {state => $kettle->{state}, boils => $kettle->{boils}};
  return {frame => $frame, text => "kettle $document: $kettle->{state} ($kettle->{boils} boils)", state => '{}'};
}

# Every other window of the session on the same kettle, as it is now.
sub updates {
  my ($session, $document, $except) = @_;
  my @updates;
  for my $key (sort keys %{$sessions{$session}{windows}}) {
    next if defined $except && $key eq $except;
    next unless $sessions{$session}{windows}{$key} eq $document;
    push @updates, {key => $key, %{window_result($session, $key)}};
  }
  return @updates;
}

my $version = 1;
for my $offered (split /,/, $ENV{WORKBENCH_HOST_PROTOCOLS} // '') { $version = 2 if $offered eq '2' }
my $escape = "\e]52;c;c2VjcmV0\a\e[2J";
send_message({
  type => 'hello', protocol => $version,
  manifest => {name => 'kettle', version => ($mode eq 'escapes' ? "1.0$escape" : '1.0'),
    summary => 'a kettle that boils on the session clock'},
  diagrams => ($mode eq 'escapes'
    ? [{name => 'boiling', title => "boiling$escape", stateMachine => JSON::PP::true, start => 'cold',
        nodes => ['cold', "hot$escape"], edges => [{from => 'cold', to => "hot$escape", label => "boil$escape"}]}]
    : []),
  ($mode eq 'undeclared-live' ? () : (liveSources => JSON::PP::true)),
  documentKinds => ['kettle'],
  samples => [{name => ($mode eq 'sample-notes' ? 'notes' : 'kettle'), kind => 'kettle', body => '{"litres":1}'},
    ($mode eq 'unheld-commit' ? ({name => 'spare', kind => 'kettle', body => '{"litres":2}'}) : ())],
  screens => [{name => 'kettle', documentKind => 'kettle', fields => ['state', 'boils']}],
  commands => [
    {name => 'boil', summary => 'boil the water: it is done after MS milliseconds', details => '', screens => ['kettle'],
      arguments => [{name => 'ms', kind => 'integer', extra => [0, 86400000], optional => JSON::PP::false, help => ''}]},
    {name => 'stop', summary => 'stop boiling', details => '', screens => ['kettle'], arguments => []},
    {name => 'wall', summary => 'someone switches it on at the wall (the change comes unasked)', details => '',
      screens => ['kettle'], arguments => []},
    {name => 'look', summary => 'show the kettle as the module has it', details => '', screens => ['kettle'],
      arguments => []},
  ],
});

if ($mode eq 'fork-exit') {
  # The process the host started goes; a child it forked answers on its pipes.
  my $child = fork();
  exit 0 if $child;
}
if ($mode eq 'fork-keep' || $mode eq 'fork-keep-changed') {
  # A child that holds the pipes and never answers; the process itself crashes at `boil`
  # (fork-keep-changed after it sent a change, so the host is waiting for the reply behind it).
  if (!fork()) { sleep 30; exit 0 }
}

while (defined(my $request = read_message())) {
  my $type = $request->{type} // '';
  my $session = $request->{session} // 0;
  my $key = $request->{key};
  $revisions{$request->{document}} = $request->{revision} if defined $request->{document} && defined $request->{revision};
  my $reply = {type => 'error', message => "unknown request '$type'"};
  $session = 0 if ref $session;  # a session that is not a number is none of ours
  my @after;  # messages that go right after the reply
  if ($type eq 'open') {
    $sessions{$session}{windows}{$key} = $request->{document};
    $reply = {type => 'result', output => undef, commit => undef, %{window_result($session, $key)}};
  } elsif (($type eq 'refresh' || $type eq 'restore') && exists $sessions{$session}{windows}{$key}) {
    $reply = {type => 'result', output => undef, commit => undef, %{window_result($session, $key)}};
  } elsif ($type eq 'command' && defined $key && exists $sessions{$session}{windows}{$key}) {
    my $document = $sessions{$session}{windows}{$key};
    my $kettle = kettle($session, $document);
    my ($name, $argument) = split ' ', $request->{line};
    my %extra;
    if ($name eq 'boil') {
      exit 3 if $mode eq 'boil-once' && $boiled++;  # the second boil of the process's life crashes it
      exit 3 if $mode eq 'fork-keep';
      if ($mode eq 'fork-keep-changed') {
        send_message({type => 'changed', session => $session, updates => [updates($session, $document, undef)]});
        exit 3;
      }
      $kettle->{state} = 'heating';
      $extra{timers} = [{id => "boil $document", after => $argument + 0}];
      $extra{timers} = [map { {id => "t$_", after => 1000} } 1 .. 300] if $mode eq 'flood-timers';
      $extra{timers} = [{id => "boil $document", after => -5}] if $mode eq 'bad-timer';
      $extra{timers} = [{id => "boil $document", at => 9223372036854775807}] if $mode eq 'far-timer';
      $extra{opened} = [{key => 'c1', screen => 'catalog', document => 'library', name => undef,
        frame => {}, text => '', state => '{}'}] if $mode eq 'foreign-window';
      # A window "opened" under the key of one that is open already.
      $extra{opened} = [{key => $key, screen => 'kettle', document => $document, name => undef,
        %{window_result($session, $key)}}] if $mode eq 'reused-key';
      if ($mode eq 'opens-w2' && !exists $sessions{$session}{windows}{w2}) {
        # A window of its own, under a key of its choosing that looks like the host's.
        $sessions{$session}{windows}{w2} = $document;
        $extra{opened} = [{key => 'w2', screen => 'kettle', document => $document, name => 'mine',
          %{window_result($session, 'w2')}}];
      }
    } elsif ($name eq 'stop') {
      $kettle->{state} = 'cold';
      $extra{cancel} = ["boil $document"];
    }
    my @updates = grep { !($extra{opened} && $_->{key} eq 'w2' && $mode eq 'opens-w2') } updates($session, $document, $key);
    $reply = {type => 'result', output => undef, commit => undef, %{window_result($session, $key)}, %extra};
    $reply->{updates} = \@updates if @updates;
    if ($name eq 'boil' && $mode eq 'chatty') {
      # Changes, one a second, and no answer: changes do not stretch the time a reply has.
      for my $second (1 .. 10) {
        send_message({type => 'changed', session => $session, updates => [updates($session, $document, undef)]});
        sleep 1;
      }
    }
    # wall-once: a device that changes once in the process's life (a replay of the session sees none).
    if ($name eq 'wall' && $mode ne 'quiet-wall' && !($mode eq 'wall-once' && $walled++)) {
      # The switch at the wall is seen while the command is on its way: the module says so
      # unasked (the host keeps it for the next time between commands), then answers.
      # The event goes to the host, which hands it back (`live`) when it takes it in: the kettle
      # is switched then, live and on a replay alike.
      my $change = {type => 'changed', session => $session, updates => [], event => {document => $document}};
      if ($mode eq 'change-after-reply') {
        push @after, $change;  # the answer goes first; the change right behind it
      } else {
        send_message($change) for 1 .. ($mode eq 'flood-changes' ? 150 : 1);
      }
    }
  } elsif ($type eq 'timer' && ($request->{timer} // '') =~ /^boil (.+)$/) {
    my $document = $1;
    exit 3 if $mode eq 'crash-in-timer';
    my $kettle = kettle($session, $document);
    $kettle->{state} = 'boiled';
    $kettle->{boils} += 1;
    my @updates = updates($session, $document, undef);
    push @updates, {key => 'nope', frame => {}, text => '', state => '{}'} if $mode eq 'stray-update';
    $reply = {type => 'ok', updates => \@updates};
    if ($mode eq 'commit-on-boil' || $mode eq 'stale-commit') {
      # The boil count is saved in the document, from the revision the host last gave (or,
      # stale, the one before it, which the host refuses).
      my $revision = ($revisions{$document} // 1) - ($mode eq 'stale-commit' ? 1 : 0);
      $reply->{commits} = [{document => $document, revision => $revision,
        body => $json->encode({litres => 1, boiled => $kettle->{boils}})}];
      $revisions{$document} = $revision + 1;
    }
    # Writes that are not its own: another module's document, a kettle it was never handed.
    $reply->{commits} = [{document => 'library', revision => 1, body => '{"litres":1}'}] if $mode eq 'foreign-commit';
    $reply->{commits} = [{document => 'spare', revision => 1, body => '{"litres":9}'}] if $mode eq 'unheld-commit';
    # A timer that sets itself again at once, without end (a hostile module's loop).
    $reply->{timers} = [{id => "boil $document", after => 0}] if $mode eq 'timer-loop';
    # A timer that sets itself again a day on, every day (a streak checked at midnight): recurring, no fault.
    $reply->{timers} = [{id => "boil $document", after => 86400000}] if $mode eq 'daily';
  } elsif ($type eq 'sync') {
    # Every change seen went out as it came: all of them are before this answer.
    $reply = {type => 'ok'};
  } elsif ($type eq 'live') {
    # A replay hands back the events of the recording's changes: the switch happens again.
    my @updates;
    for my $event (@{$request->{events} // []}) {
      kettle($session, $event->{document})->{state} = 'on at the wall';
      push @updates, updates($session, $event->{document}, undef);
    }
    $reply = {type => 'ok', updates => \@updates};
  } elsif ($type eq 'close') {
    delete $sessions{$session}{windows}{$key} if defined $key;
    $reply = {type => 'ok'};
  } elsif ($type eq 'end') {
    exit 3 if $mode eq 'crash-on-end';
    delete $sessions{$session};
    $reply = {type => 'ok'};
  } elsif ($type eq 'capture' && $mode eq 'bad-capture') {
    # A state that is a window's and whose source does not say it is one (§12).
    $reply = {type => 'ok', facts => [{source => 'kettle', scope => 'window 1', value => 1}]};
  }
  $reply = {type => 'error', message => "no such request$escape"} if $mode eq 'escapes' && $type eq 'no-such-request';
  $reply->{id} = $request->{id} if exists $request->{id};
  send_message($reply);
  # A moment later, as a device on its own would: after the host has the answer.
  select(undef, undef, undef, 0.003) if @after;
  send_message($_) for @after;
  exit 0 if $mode eq 'exit-after-timer' && $type eq 'timer';
  exit 0 if $mode eq 'exit-after-end' && $type eq 'end' && !%sessions;  # its last session ended: it leaves
  if ($mode eq 'die-later' && $type eq 'command' && ($request->{line} // '') =~ /^boil/) {
    select(undef, undef, undef, 0.2);
    exit 0;
  }
}
