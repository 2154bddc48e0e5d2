// Policy.g4: syntax of the cwsc policy language (.cwsp). docs/dsl.md is the
// reference. The grammar holds syntax only (no actions or predicates); the
// frontend (compiler/dsl_frontend.cc) checks meaning and lowers a policy to a
// PolicySpec. No rule is recursive, so hostile nesting cannot exhaust the stack.
grammar Policy;

file        : policy* EOF ;

policy      : POLICY name=word (EXTENDS parent=word)? LBRACE statement* RBRACE ;

statement
  : MODE modeName SEMI                              # modeStmt
  | NETWORK onOff SEMI                              # networkStmt
  | WRITABLE pathList SEMI                          # writableStmt
  | READ_ONLY pathList SEMI                         # readOnlyStmt
  | DEVICE pathList SEMI                            # deviceStmt
  | DENY READ pathList SEMI                         # denyReadStmt
  | EXEMPT READ pathList SEMI                       # exemptReadStmt
  | DENY_DEFAULTS onOff SEMI                        # denyDefaultsStmt
  | which=(TMP | SLASH_TMP | TMPDIR) tmpStance SEMI  # tmpStmt
  | PROTECT nameList SEMI                           # protectStmt
  | WRAPPER wrapperName PREFER onOff SEMI           # wrapperStmt
  | LINUX_BACKEND linuxBackendName SEMI             # linuxBackendStmt
  | REQUIRE_SANDBOX onOff SEMI                      # requireSandboxStmt
  | BACKEND backendName ( SEMI | LBRACE backendSetting* RBRACE SEMI? )  # backendStmt
  | LAUNCHER LBRACK argList RBRACK SEMI             # launcherStmt
  | MANAGED_CONFIG path SEMI                        # managedConfigStmt
  | EXPECT expectWhat verdict (IN modeName (COMMA modeName)*)? SEMI  # expectStmt
  // Parsed so that the error names the word and the next statements are
  // still checked; the frontend reports it as an unknown statement.
  | IDENT ( ~( SEMI | LBRACE | RBRACE | UNTERMINATED_STRING | UNTERMINATED_COMMENT
             | ERROR_CHAR ) )* SEMI                  # unknownStmt
  ;

// Every decision looks at one token only, so a syntax error is always "this
// token was not expected here", which reads well in a message.
expectWhat
  : access=(READ | WRITE | EXEC | CREATE) path      # expectPath
  | NETWORK target=STRING?                          # expectNetwork
  ;

backendSetting
  : URL url SEMI                                    # urlSetting
  | API_KEY apiKey SEMI                             # apiKeySetting
  | API word SEMI                                   # apiSetting
  | EXECD_URL url SEMI                              # execdUrlSetting
  | IMAGE STRING SEMI                               # imageSetting
  | EXECD_PORT NUMBER SEMI                          # execdPortSetting
  | KEEP onOff SEMI                                 # keepSetting
  | REMOTE_CWD STRING SEMI                          # remoteCwdSetting
  ;

apiKey
  : source=(ENV | FILE) keyRef                      # apiKeyRef
  | STRING                                          # apiKeyLiteral
  ;

modeName    : word ;
wrapperName : word ;
linuxBackendName : word ;
backendName : word ;
onOff       : ON | OFF ;
tmpStance   : PRIVATE | SHARED ;
verdict     : ALLOWED | DENIED ;
pathList    : path (COMMA path)* ;
path        : STRING ;
nameList    : protectName (COMMA protectName)* ;
protectName : STRING ;
argList     : arg (COMMA arg)* ;
arg         : STRING ;
url         : STRING ;
keyRef      : STRING ;

// A word is a name: policy names, modes, backends. Keywords are words too, so
// a policy may be called `network` and a mode value needs no quoting.
word
  : IDENT | POLICY | EXTENDS | MODE | NETWORK | WRITABLE | READ_ONLY | DEVICE
  | DENY | EXEMPT | READ | WRITE | DENY_DEFAULTS | TMP | SLASH_TMP | TMPDIR
  | PROTECT | WRAPPER | PREFER | BACKEND | LAUNCHER | MANAGED_CONFIG | EXPECT
  | URL | API_KEY | API | EXECD_URL | IMAGE | EXECD_PORT | KEEP | REMOTE_CWD
  | ENV | FILE | ON | OFF | PRIVATE | SHARED | ALLOWED | DENIED | LINUX_BACKEND
  | REQUIRE_SANDBOX | EXEC | CREATE | IN
  ;

POLICY         : 'policy' ;
EXTENDS        : 'extends' ;
MODE           : 'mode' ;
NETWORK        : 'network' ;
WRITABLE       : 'writable' ;
READ_ONLY      : 'read_only' ;
DEVICE         : 'device' ;
DENY           : 'deny' ;
EXEMPT         : 'exempt' ;
READ           : 'read' ;
WRITE          : 'write' ;
DENY_DEFAULTS  : 'deny_defaults' ;
TMP            : 'tmp' ;
SLASH_TMP      : 'slash_tmp' ;
TMPDIR         : 'tmpdir' ;
PROTECT        : 'protect' ;
WRAPPER        : 'wrapper' ;
PREFER         : 'prefer' ;
BACKEND        : 'backend' ;
LAUNCHER       : 'launcher' ;
MANAGED_CONFIG : 'managed_config' ;
EXPECT         : 'expect' ;
URL            : 'url' ;
API_KEY        : 'api_key' ;
API            : 'api' ;
EXECD_URL      : 'execd_url' ;
IMAGE          : 'image' ;
EXECD_PORT     : 'execd_port' ;
KEEP           : 'keep' ;
REMOTE_CWD     : 'remote_cwd' ;
ENV            : 'env' ;
FILE           : 'file' ;
ON             : 'on' ;
OFF            : 'off' ;
PRIVATE        : 'private' ;
SHARED         : 'shared' ;
ALLOWED        : 'allowed' ;
DENIED         : 'denied' ;
LINUX_BACKEND  : 'linux_backend' ;
REQUIRE_SANDBOX : 'require_sandbox' ;
// Keywords end at IN (compiler/dsl_frontend.cc classifies tokens by range).
EXEC           : 'exec' ;
CREATE         : 'create' ;
IN             : 'in' ;

LBRACE : '{' ;
RBRACE : '}' ;
LBRACK : '[' ;
RBRACK : ']' ;
SEMI   : ';' ;
COMMA  : ',' ;

IDENT  : [a-zA-Z_] [a-zA-Z0-9_\-]* ;
NUMBER : [0-9]+ ;

// A string stays on one line; escapes are \" \\ \$ \n \t.
STRING : '"' ( ~["\\\r\n] | '\\' ~[\r\n] )* '"' ;
// The longer STRING wins whenever the closing quote is there.
UNTERMINATED_STRING : '"' ( ~["\\\r\n] | '\\' ~[\r\n] )* ;

// Comments go to a hidden channel: the parser skips them, the formatter keeps them.
LINE_COMMENT  : ( '#' | '//' ) ~[\r\n]* -> channel(2) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(2) ;
// Only matched when BLOCK_COMMENT cannot close before the end of the input.
UNTERMINATED_COMMENT : '/*' ;

WS : [ \t\r\n]+ -> channel(HIDDEN) ;

// Anything else becomes one token the parser reports as unexpected, so the
// lexer itself never reports an error.
ERROR_CHAR : . ;
