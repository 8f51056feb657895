<?php
/*
 * Router for PHP's built-in server serving an EspoCRM tree (part of the test setup, not of EspoCRM):
 *   php -S 127.0.0.1:<port> -t <tree> router.php
 * It does what EspoCRM's .htaccess files do under Apache:
 *   /api/v1/...            -> public/api/v1/index.php (SCRIPT_NAME /api/v1/index.php, working directory public/api/v1)
 *   /client/...            -> static files of the tree
 *   data/, application/, custom/, vendor/, install/ (and anything else outside public/ and client/): never served
 *   other paths            -> a file of public/ when there is one, otherwise public/index.php (the web UI, entry points)
 */

$root = rtrim($_SERVER['DOCUMENT_ROOT'], '/');

// one line per request on the server's log (stderr), read by the test runner: "RMS <status> <ms> <method> <uri> | <reason>"
$rmsStarted = microtime(true);
register_shutdown_function(function () use ($rmsStarted) {
    $reason = '';
    foreach (headers_list() as $h) {
        if (stripos($h, 'X-Status-Reason:') === 0) {
            $reason = trim(substr($h, 16));
        }
    }
    $line = sprintf(
        "RMS %d %d %s %s%s\n",
        http_response_code() ?: 200,
        (int) round((microtime(true) - $rmsStarted) * 1000),
        $_SERVER['REQUEST_METHOD'] ?? '-',
        $_SERVER['REQUEST_URI'] ?? '-',
        $reason !== '' ? ' | ' . str_replace(["\r", "\n"], ' ', $reason) : ''
    );
    file_put_contents('php://stderr', $line);
});
$uri = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?: '/');

if (strpos($uri, "\0") !== false || preg_match('#(^|/)\.\.(/|$)#', $uri)) {
    http_response_code(400);
    return true;
}

$run = function (string $script, string $scriptName) use ($root) {
    $file = $root . '/public' . $script;
    $_SERVER['SCRIPT_NAME'] = $scriptName;
    $_SERVER['PHP_SELF'] = $scriptName;
    $_SERVER['SCRIPT_FILENAME'] = $file;
    // Apache's rewrite puts the Authorization header here too (EspoCRM reads it when PHP does not see the header)
    if (isset($_SERVER['HTTP_AUTHORIZATION']) && !isset($_SERVER['HTTP_ESPO_CGI_AUTH'])) {
        $_SERVER['HTTP_ESPO_CGI_AUTH'] = $_SERVER['HTTP_AUTHORIZATION'];
    }
    chdir(dirname($file));
    require $file;
    return true;
};

// the API
if ($uri === '/api/v1' || strpos($uri, '/api/v1/') === 0) {
    return $run('/api/v1/index.php', '/api/v1/index.php');
}

// static client files
if (strpos($uri, '/client/') === 0) {
    if (is_file($root . $uri)) {
        return false; // the built-in server sends the file with its content type
    }
    http_response_code(404);
    return true;
}

// everything else of the tree stays private (data/ holds the keys)
$public = $root . '/public' . $uri;
if ($uri !== '/' && is_file($public) && substr($public, -4) !== '.php' && basename($public) !== 'web.config') {
    $types = ['css' => 'text/css', 'js' => 'application/javascript', 'png' => 'image/png', 'svg' => 'image/svg+xml',
        'ico' => 'image/x-icon', 'txt' => 'text/plain', 'json' => 'application/json', 'html' => 'text/html'];
    $ext = strtolower(pathinfo($public, PATHINFO_EXTENSION));
    header('Content-Type: ' . ($types[$ext] ?? 'application/octet-stream'));
    readfile($public);
    return true;
}
if ($uri === '/portal' || strpos($uri, '/portal/') === 0) {
    return $run('/portal/index.php', '/portal/index.php');
}
if ($uri === '/' || $uri === '/index.php' || !preg_match('#^/(data|application|custom|vendor|install|bin|html|public)(/|$)#', $uri)) {
    return $run('/index.php', '/index.php');
}
http_response_code(403);
return true;
