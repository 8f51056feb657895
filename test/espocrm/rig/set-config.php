<?php
/*
 * Merges values into EspoCRM's config files (part of the test setup, not of EspoCRM):
 *   php set-config.php <tree> '{"config.php": {"siteUrl": "..."}, "config-internal.php": {"database": {"port": "3307"}}}'
 * Runs while no EspoCRM process is serving the tree (EspoCRM reads the files on every request). Objects are merged
 * key by key; a list (`[...]`) or null replaces the value it is given for.
 */
if (PHP_SAPI !== 'cli') {
    exit(1);
}
$tree = $argv[1] ?? '';
$changes = json_decode($argv[2] ?? '', true);
if (!is_dir("$tree/data") || !is_array($changes)) {
    fwrite(STDERR, "usage: php set-config.php <tree> '<json>'\n");
    exit(2);
}
function merged(array $data, array $values): array
{
    foreach ($values as $key => $value) {
        $data[$key] = is_array($value) && !array_is_list($value) && is_array($data[$key] ?? null)
            ? merged($data[$key], $value)
            : $value;
    }
    return $data;
}
foreach ($changes as $file => $values) {
    if (!in_array($file, ['config.php', 'config-internal.php'], true)) {
        fwrite(STDERR, "unknown config file $file\n");
        exit(2);
    }
    $path = "$tree/data/$file";
    $data = include $path;
    if (!is_array($data)) {
        fwrite(STDERR, "$path does not return an array\n");
        exit(3);
    }
    $data = merged($data, $values);
    $tmp = "$path.tmp";
    file_put_contents($tmp, "<?php\nreturn " . var_export($data, true) . ";\n");
    rename($tmp, $path);
}
echo "ok\n";
